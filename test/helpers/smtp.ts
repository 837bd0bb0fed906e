import { after } from 'node:test'
import { SMTPServer } from 'smtp-server'

/** One message a test's SMTP server accepted. */
export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

/**
 * A real SMTP server in this process on a free loopback port (no TLS, no auth), closed after the
 * file's tests: the service sends to `SMTP_URL: smtp://127.0.0.1:${port}` and every message lands
 * in `received`, in order.
 */
export async function startSmtpServer(): Promise<{ port: number; received: ReceivedMail[] }> {
  const received: ReceivedMail[] = []
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  after(() => new Promise<void>((resolve) => smtp.close(() => resolve())))
  const address = smtp.server.address()
  if (address === null || typeof address === 'string') throw new Error('the SMTP server has no port')
  return { port: address.port, received }
}
