import type { MailWebhookSecrets } from "../../config/mail.ts";
import type { FeedbackProvider, FeedbackWebhook } from "./feedback-webhook.ts";
import { createMailgunWebhook } from "./mailgun.ts";
import { createPostmarkWebhook } from "./postmark.ts";
import { createSendgridWebhook } from "./sendgrid.ts";
import { createSesWebhook } from "./ses.ts";

/** The providers' bounce/complaint webhooks that have their secret configured (the others answer 503). */
export type MailWebhooks = Partial<Record<FeedbackProvider, FeedbackWebhook>>;

export function createMailWebhooks(s: MailWebhookSecrets): MailWebhooks {
  if (s.sesTopicArn && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/.test(s.sesTopicArn)) {
    throw new Error(`SES_SNS_TOPIC_ARN must be an SNS topic ARN such as arn:aws:sns:us-east-1:123456789012:ses-feedback, got "${s.sesTopicArn}"`);
  }
  if (Boolean(s.postmarkUser) !== Boolean(s.postmarkPassword)) throw new Error("POSTMARK_WEBHOOK_USER and POSTMARK_WEBHOOK_PASSWORD go together: set both or neither");
  return {
    ses: s.sesTopicArn ? createSesWebhook({ topicArn: s.sesTopicArn }) : undefined,
    sendgrid: s.sendgridPublicKey ? createSendgridWebhook({ publicKey: s.sendgridPublicKey }) : undefined,
    postmark: s.postmarkUser && s.postmarkPassword ? createPostmarkWebhook({ user: s.postmarkUser, password: s.postmarkPassword }) : undefined,
    mailgun: s.mailgunSigningKey ? createMailgunWebhook({ signingKey: s.mailgunSigningKey }) : undefined,
  };
}
