/**
 * The benchmark's BASELINE: a plain node:http server that answers the serving
 * endpoints with the same shapes and sizes as the service (a JSON decision of
 * the real size with a random impression id; 204 for a view) after reading and
 * parsing the JSON body — no validation, no auction, no store, no limits. It
 * measures what the machine, Node's HTTP stack and the load generator can do
 * at all, so the service's figures read as a share of that.
 *
 *   PORT=9999 node --import tsx bench/baseline-server.ts
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'

const port = Number(process.env.PORT ?? 0)
const host = process.env.HOST ?? '127.0.0.1'
const base = `http://${host}:${port}`
const VIEW = /^\/serve\/v1\/impressions\/([^/]{1,400})\/view$/

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    res.end('{"status":"ok"}')
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null')
    } catch {
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' })
      res.end('{"detail":"malformed JSON"}')
      return
    }
    if (req.method === 'POST' && req.url === '/serve/v1/decisions' && body !== null && typeof body === 'object') {
      // The real id is a signed offer of about 180 characters.
      const id = `imp_${randomBytes(118).toString('base64url')}.${randomBytes(16).toString('base64url')}`
      const payload = JSON.stringify({
        impression_id: id,
        ad_line: 'Ship faster with Acme CI',
        brand: null,
        icon_url: null,
        view_url: `${base}/serve/v1/impressions/${id}/view`,
        click_url: `${base}/serve/v1/impressions/${id}/click`,
      })
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) })
      res.end(payload)
      return
    }
    if (req.method === 'POST' && VIEW.test(req.url ?? '')) {
      res.writeHead(204)
      res.end()
      return
    }
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
    res.end('{"detail":"not found"}')
  })
})
server.keepAliveTimeout = 72_000
server.listen(port, host)
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => process.exit(0)))
