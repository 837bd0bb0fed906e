/**
 * HTTP for the tools: one-off JSON calls (set-up, checks), a keep-alive pool
 * bound to one origin (request loops), and the addresses load generators
 * send from. Only loopback origins are ever loaded.
 */
import { Pool } from 'undici'

export interface JsonReply {
  status: number
  text: string
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown
}

export interface JsonRequest {
  body?: unknown
  headers?: Record<string, string>
  /** A GET whose kept-alive socket the server closed while idle fails at once: send it once more. */
  retryGet?: boolean
}

/** One request with fetch; a body is sent as JSON. */
export async function jsonRequest(origin: string, method: string, path: string, request: JsonRequest = {}): Promise<JsonReply> {
  const { body, headers = {} } = request
  const send = () =>
    fetch(origin + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  let res: Response
  try {
    res = await send()
  } catch (err) {
    if (!(request.retryGet && method === 'GET')) throw err
    res = await send()
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.status, text, json }
}

/** `text` parsed as a JSON object; {} for anything else. */
export function jsonObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text)
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

export interface PoolReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** Keep-alive connections to ONE origin (an undici Pool: nothing else can be reached through it). */
export class OriginPool {
  readonly #pool: Pool
  readonly #timeoutMs: number
  constructor(origin: string, connections: number, timeoutMs: number) {
    this.#pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 })
    this.#timeoutMs = timeoutMs
  }
  async call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<PoolReply> {
    const res = await this.#pool.request({
      method,
      path,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    })
    const text = await res.body.text()
    return { status: res.statusCode, headers: res.headers, text }
  }
  close(): Promise<void> {
    return this.#pool.close()
  }
}

/** A distinct address of 198.18.0.0/15 (RFC 2544 benchmarking range) per simulated client `i`. */
export function viewerAddress(i: number): string {
  const hostsPerBlock = 254
  const block = Math.floor(i / hostsPerBlock)
  return `198.${18 + (block >> 8)}.${block & 255}.${(i % hostsPerBlock) + 1}`
}
