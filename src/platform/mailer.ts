import { createTransport } from 'nodemailer'

/** One plain-text email. */
export interface MailMessage {
  to: string
  subject: string
  text: string
}

/** The email port: delivers one message or throws. */
export interface Mailer {
  send(msg: MailMessage): Promise<void>
}

/** How long any one SMTP step may take, so a stalled server never hangs a caller. */
const SMTP_TIMEOUT_MS = 5_000

/**
 * A mailer over SMTP (`SMTP_URL`, smtp:// or smtps://, credentials in the URL
 * if any). Each message opens its own connection; every phase has a timeout.
 */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = createTransport({
    url,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  })
  return {
    async send(msg) {
      await transport.sendMail({ from, to: msg.to, subject: msg.subject, text: msg.text })
    },
  }
}
