import type { ProcessSlot } from '../process/session.js'
import { GATEWAY_ROUTES, withScheme } from './routes.js'

/**
 * Names the gateway of a recorded or replayed command to every process of it (JSON of a
 * {@link GatewayAddress}): a Node process reads it to take the gateway's variables out of its own
 * environment, and to give each child it starts the variables of that child's place.
 */
export const GATEWAY_ENV = 'AGENT_TAPE_GATEWAY'

/** The variables by which HTTP clients outside Node (`curl`, Python, Go, …) find a proxy. */
export const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
]

/**
 * The variables by which clients find the authorities they trust, each given the run's bundle
 * with `--intercept-https`: OpenSSL and what builds on it (Python's `ssl`, httpx, Ruby, PHP), requests, curl,
 * and Node.
 */
export const CA_VARIABLES = ['SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS']

/** The user name of the gateway's proxy credentials: the password names the process's place. */
export const PROXY_USER = 'agent-tape'

/** Where a command's gateway listens, and what it stands in for. */
export interface GatewayAddress {
  /** `http://127.0.0.1:<port>`. */
  url: string
  /** Whether the proxy variables name the gateway (not while recording behind a proxy of the user's own). */
  proxy: boolean
  /** The routes the base-URL variables name (see `GATEWAY_ROUTES`). */
  routes: string[]
  /** The bundle of the run's certificate authority with the system's roots (`--intercept-https`). */
  caFile?: string
  /** Each variable the gateway's stand in for, with its value in the command's environment (`null`: unset). */
  replaced: Record<string, string | null>
}

/**
 * The gateway's variables for a process in `slot`'s place: the proxy variables with credentials
 * that name the place (clients send them as `Proxy-Authorization`), each route's base-URL
 * variable with the place in its path, the run's certificate bundle where HTTPS is intercepted,
 * and the address itself for the Node processes among them. `read` reads the environment the
 * process is given: a base URL set there (a test giving its child a test server) is the upstream
 * of that route for the process, carried in its place.
 */
export function gatewayVariables(
  address: GatewayAddress,
  slot: ProcessSlot,
  read: (name: string) => string | undefined = () => undefined,
): Record<string, string> {
  const upstreams: Record<string, string> = {}
  for (const route of GATEWAY_ROUTES) {
    const value = read(route.variable)?.trim()
    if (address.routes.includes(route.route) && value && !value.startsWith(`${address.url}/@`))
      upstreams[route.route] = withScheme(value).replace(/\/+$/, '')
  }
  const tag = slotTag(slot, upstreams)
  const { host } = new URL(address.url)
  const variables: Record<string, string> = { [GATEWAY_ENV]: JSON.stringify(address) }
  if (address.proxy) {
    for (const name of PROXY_VARIABLES) variables[name] = `http://${PROXY_USER}:${tag}@${host}`
  }
  for (const route of GATEWAY_ROUTES) {
    if (address.routes.includes(route.route))
      variables[route.variable] = `${address.url}/@${tag}/${route.route}`
  }
  if (address.caFile) for (const name of CA_VARIABLES) variables[name] = address.caFile
  return variables
}

/**
 * Takes the gateway's variables out of a Node process's environment (its clients stay on the
 * process's own boundary: the openai SDK reads `OPENAI_BASE_URL`, axios `HTTPS_PROXY`), putting
 * back what the command's environment had; returns the address for its children.
 */
export function takeGatewayVariables(env: NodeJS.ProcessEnv): GatewayAddress | undefined {
  const address = readAddress(env[GATEWAY_ENV])
  if (!address) return undefined
  for (const [name, value] of Object.entries(address.replaced)) {
    const current = env[name]
    // A variable the process's parent set to something else is the parent's choice: kept.
    const ours =
      current !== undefined &&
      (current.startsWith(`${address.url}/@`) ||
        current === address.caFile ||
        isGatewayProxy(current, address))
    if (!ours) continue
    if (value === null) delete env[name]
    else env[name] = value
  }
  return address
}

/** The variables the gateway stands in for, with their values in `env` (see `GatewayAddress.replaced`). */
export function replacedVariables(
  env: Record<string, string | undefined>,
  routes: readonly string[],
  proxy: boolean,
  ca: boolean,
): Record<string, string | null> {
  const names = [
    ...(proxy ? PROXY_VARIABLES : []),
    ...(ca ? CA_VARIABLES : []),
    ...GATEWAY_ROUTES.filter((r) => routes.includes(r.route)).map((r) => r.variable),
  ]
  return Object.fromEntries(names.map((name) => [name, env[name] ?? null]))
}

function isGatewayProxy(value: string | undefined, address: GatewayAddress): boolean {
  if (value === undefined) return false
  try {
    const url = new URL(value)
    return url.username === PROXY_USER && url.host === new URL(address.url).host
  } catch {
    return false
  }
}

function readAddress(text: string | undefined): GatewayAddress | undefined {
  if (!text) return undefined
  try {
    const address = JSON.parse(text) as GatewayAddress
    return typeof address.url === 'string' && typeof address.replaced === 'object' ? address : undefined
  } catch {
    return undefined
  }
}

/** What a gateway's URL or credentials say of the process that sends a request. */
export interface TaggedPlace {
  slot: ProcessSlot
  /** The upstreams of routes that the process's own environment set (see {@link gatewayVariables}). */
  upstreams: Record<string, string>
}

/** A place as the gateway's URLs and credentials carry it: base64url of its JSON. */
export function slotTag(slot: ProcessSlot, upstreams: Record<string, string> = {}): string {
  const parts: unknown[] = [slot.path, slot.lane]
  if (Object.keys(upstreams).length > 0) parts.push(upstreams)
  return Buffer.from(JSON.stringify(parts)).toString('base64url')
}

/** The place a {@link slotTag} names, or `undefined` for a tag that names none. */
export function slotOfTag(tag: string): TaggedPlace | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(tag, 'base64url').toString('utf8')) as unknown
    if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string')
      return undefined
    const upstreams =
      typeof parsed[2] === 'object' && parsed[2] !== null ? (parsed[2] as Record<string, string>) : {}
    return { slot: { path: parsed[0], lane: parsed[1] }, upstreams }
  } catch {
    return undefined
  }
}
