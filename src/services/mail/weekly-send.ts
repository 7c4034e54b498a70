import type { CityInfo, Recipient, Sender } from "../../core/edition/email-headers.ts";
import { prepareWeekly, renderWeekly, WEEKLY_HIDEABLE, weeklyWithoutSections, type PreparedWeekly } from "../../core/edition/weekly-email.ts";
import { hiddenKeys } from "../../core/readers/preferences.ts";
import type { ClaimedSubscriberRow } from "../../store/mail/outbox.ts";
import { weeklyForMail } from "../../store/morning/weekly.ts";
import type { MailBatch } from "./batch.ts";
import { deliver } from "./deliver.ts";
import { cancel } from "./settle.ts";

/**
 * What sends one reader's weekly email: the town's weekly (stored once, src/services/mail/weekly.ts)
 * prepared once per batch and set of hidden sections the weekly has (most readers: none), never per
 * reader, then each reader's copy with their own footer, composed per message (weekly readers are
 * few beside a morning's digests).
 */
export function weeklySender(b: MailBatch, sender: Sender, messageIdOf: (row: ClaimedSubscriberRow) => string) {
  const { ctx } = b;
  const weeklies = new Map<string, PreparedWeekly | undefined>();
  const weekly = (id: number, hiddenText: string) => {
    // Keyed by the hidden sections the weekly has: a reader who hid only sun times shares the whole weekly.
    const hidden = hiddenKeys(hiddenText).filter((k) => WEEKLY_HIDEABLE.includes(k));
    const key = `${id}|${hidden.join(",")}`;
    if (!weeklies.has(key)) {
      const row = weeklyForMail(ctx.db, id);
      weeklies.set(key, row && prepareWeekly(hidden.length ? { ...row, html: weeklyWithoutSections(row.html, hidden) } : row));
    }
    return weeklies.get(key);
  };
  return async (row: ClaimedSubscriberRow, to: Recipient, city: CityInfo): Promise<void> => {
    const w = row.weekly_id == null ? undefined : weekly(row.weekly_id, row.hidden_sections);
    if (!w) return cancel(b, row, "weekly email no longer exists");
    const message = renderWeekly(sender, to, city, w);
    return deliver(b, row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row), date: new Date(b.now()) }), row.subscriber_id);
  };
}
