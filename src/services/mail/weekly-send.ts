import type { CityInfo, Recipient, Sender } from "../../core/edition/email-headers.ts";
import { prepareWeekly, renderWeekly, type PreparedWeekly } from "../../core/edition/weekly-email.ts";
import type { ClaimedSubscriberRow } from "../../store/mail/outbox.ts";
import { weeklyForMail } from "../../store/morning/weekly.ts";
import type { MailBatch } from "./batch.ts";
import { deliver } from "./deliver.ts";
import { cancel } from "./settle.ts";

/**
 * What sends one reader's weekly email: the town's weekly (stored once, src/services/mail/weekly.ts)
 * prepared once per batch, then each reader's copy with their own footer, composed per message
 * (weekly readers are few beside a morning's digests).
 */
export function weeklySender(b: MailBatch, sender: Sender, messageIdOf: (row: ClaimedSubscriberRow) => string) {
  const { ctx } = b;
  const weeklies = new Map<number, PreparedWeekly | undefined>();
  const weekly = (id: number) => {
    if (!weeklies.has(id)) {
      const row = weeklyForMail(ctx.db, id);
      weeklies.set(id, row && prepareWeekly(row));
    }
    return weeklies.get(id);
  };
  return async (row: ClaimedSubscriberRow, to: Recipient, city: CityInfo): Promise<void> => {
    const w = row.weekly_id == null ? undefined : weekly(row.weekly_id);
    if (!w) return cancel(b, row, "weekly email no longer exists");
    const message = renderWeekly(sender, to, city, w);
    return deliver(b, row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row) }), row.subscriber_id);
  };
}
