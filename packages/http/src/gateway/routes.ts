/**
 * The base-URL variables by which model SDKs in every language find their provider, one row
 * each: a command's processes get each pointed at the gateway (see `gatewayVariables`), and the
 * gateway sends what arrives on a route on to its upstream while recording. A row with a default
 * stands in whether or not the command's environment sets the variable (the upstream is then the
 * provider's own URL); one without stands in only where the environment sets it, since its
 * upstream is the user's own resource.
 */
export interface GatewayRoute {
  /** The variable, as the SDKs read it. */
  variable: string
  /** The route's name in the gateway's URLs: `http://127.0.0.1:<port>/@<slot>/<name>/…`. */
  name: string
  /** The upstream when the environment does not set the variable; none: the route is used only when it does. */
  upstream?: string
  /** Who reads it, for the documentation. */
  readBy: string
}

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  {
    variable: 'OPENAI_BASE_URL',
    name: 'openai',
    upstream: 'https://api.openai.com/v1',
    readBy: 'the OpenAI SDKs (Python, Node, Go, Java, .NET), LiteLLM, the Agents SDK',
  },
  {
    variable: 'OPENAI_API_BASE',
    name: 'openai-api-base',
    upstream: 'https://api.openai.com/v1',
    readBy: 'openai-python before 1.0, LangChain',
  },
  {
    variable: 'ANTHROPIC_BASE_URL',
    name: 'anthropic',
    upstream: 'https://api.anthropic.com',
    readBy: 'the Anthropic SDKs (Python, Node, Go, Java), Claude Code',
  },
  {
    variable: 'GOOGLE_GEMINI_BASE_URL',
    name: 'gemini',
    upstream: 'https://generativelanguage.googleapis.com',
    readBy: 'google-genai (Python) and @google/genai',
  },
  {
    variable: 'OLLAMA_HOST',
    name: 'ollama',
    readBy:
      'the Ollama clients (Python, JavaScript); set only when the environment sets it, since `ollama serve` reads it as the address to listen on',
  },
  {
    variable: 'AZURE_OPENAI_ENDPOINT',
    name: 'azure-openai',
    readBy: "the OpenAI SDKs' Azure clients; the resource's own URL",
  },
  {
    variable: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
    name: 'bedrock',
    readBy:
      'boto3, the AWS SDKs and CLI; an endpoint of your own only: SigV4 signs the host, so a request signed for the gateway is refused by AWS itself',
  },
]

/** The route of a gateway URL's first path segment after the slot. */
export function routeNamed(name: string): GatewayRoute | undefined {
  return GATEWAY_ROUTES.find((route) => route.name === name)
}

/**
 * The upstream of each route a command's processes get, from its environment: the variable's
 * value where it is set (the user's own server, a local model, a test server), else the route's
 * default; routes without a default are left out where the variable is unset.
 */
export function upstreamsOf(env: Record<string, string | undefined>): Record<string, string> {
  const upstreams: Record<string, string> = {}
  for (const route of GATEWAY_ROUTES) {
    const value = env[route.variable]?.trim()
    const upstream = value ? withScheme(value) : route.upstream
    if (upstream) upstreams[route.name] = upstream.replace(/\/+$/, '')
  }
  return upstreams
}

/** `OLLAMA_HOST=127.0.0.1:11434` names a host without a scheme: plain HTTP, as the clients read it. */
export function withScheme(value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
}
