import { gzipSync } from 'node:zlib'
import { generator } from './secret-corpus.js'

/**
 * Ordinary text that a run carries every day and that must be recorded as it is: no refusal, no
 * redaction. Code, logs, API payloads, documentation with its well-known example keys, and
 * environments full of limits and URLs that have a secret-like word in their names.
 */

export interface OrdinaryText {
  id: string
  category: 'code' | 'log' | 'payload' | 'docs' | 'env'
  /** What the run carries: a string, or a JSON value. */
  value: unknown
  /** The environment of the run. */
  env?: Record<string, string>
}

const t = (category: OrdinaryText['category'], id: string, value: unknown, env?: Record<string, string>) =>
  env ? { id, category, value, env } : { id, category, value }

/** An environment like a developer's: limits, URLs, flags and models next to the real keys. */
export const EVERYDAY_ENV: Record<string, string> = {
  PASSWORD_MIN_LENGTH: '12',
  PASSWORD_MAX_AGE_DAYS: '90',
  OPENAI_MAX_TOKENS: '1024',
  ANTHROPIC_MAX_TOKENS: '4096',
  TOKEN_URL: 'https://auth.example.com/oauth/token',
  AUTH_ENDPOINT: 'https://auth.example.com/authorize',
  SECRET_MANAGER_REGION: 'eu-west-1',
  SESSION_TIMEOUT: '3600',
  API_KEY_HEADER: 'x-api-key',
  TOKEN_LIMIT: '128000',
  OPENAI_MODEL_TOKEN: 'gpt-4o-mini',
  AUTH_ENABLED: 'true',
  SKIP_AUTH: 'false',
  JWT_EXPIRY: '15m',
  TOKENIZERS_PARALLELISM: 'false',
  KEY_COUNT: '3',
  SECRET_NAME: 'prod/payments',
  POSTGRES_PASSWORD: 'postgres',
  REDIS_PASSWORD: 'redis',
  GIT_ASKPASS: '/usr/lib/git-core/git-gui--askpass',
  SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.1234',
  MODEL_API_KEY: 'sk-test-dummy',
}

const JWT_IO_EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

// Ids, digests and blobs for the ordinary texts at the end of the list, drawn from a seeded
// generator: the same on every run, and nothing shaped like a key sits in the repository.
const id = generator(4242)
const uuid = () => `${id.hex(8)}-${id.hex(4)}-4${id.hex(3)}-a${id.hex(3)}-${id.hex(12)}`
const ulid = () => `01J${[...id.upperDigits(23)].map((c) => ('ILOU'.includes(c) ? '7' : c)).join('')}`
const b64 = (bytes: number) => Buffer.from(id.hex(2 * bytes), 'hex').toString('base64')
const b64url = (bytes: number) => Buffer.from(id.hex(2 * bytes), 'hex').toString('base64url')
/** A base64 body wrapped at `width` columns, as PEM and MIME write one. */
const wrapped = (body: string, width = 64) => body.replace(new RegExp(`(.{${width}})(?=.)`, 'g'), '$1\n')
/** A PNG signature and header, then random bytes, as a data URL. */
const pngDataUrl = () =>
  `data:image/png;base64,${Buffer.from(`89504e470d0a1a0a0000000d49484452${id.hex(96)}`, 'hex').toString('base64')}`
/** A CI runner's environment: ids, refs and paths, none of them secret (`CI` itself stops a recording). */
const CI_ENV: Record<string, string> = {
  GITHUB_SHA: id.hex(40),
  GITHUB_REF: 'refs/heads/main',
  GITHUB_RUN_ID: id.digits(10),
  GITHUB_REPOSITORY: 'acme/agent',
  RUNNER_OS: 'Linux',
  RUNNER_TEMP: '/home/runner/work/_temp',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://pipelines.actions.githubusercontent.com/oidc/token',
  SSH_KEY_PATH: '/home/runner/.ssh/id_ed25519',
  NPM_CONFIG_USERCONFIG: '/home/runner/work/_temp/.npmrc',
  SECRET_SCANNING: 'enabled',
  TOKEN_AUDIENCE: 'sts.amazonaws.com',
}

export const ORDINARY_TEXTS: readonly OrdinaryText[] = [
  // Code
  t(
    'code',
    'ts-interface',
    'interface Login { username: string; password: string; token?: string; apiKey?: string }',
  ),
  t('code', 'env-reference', 'const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY })'),
  t(
    'code',
    'python-env',
    'api_key = os.environ["ANTHROPIC_API_KEY"]\nclient = anthropic.Anthropic(api_key=api_key)',
  ),
  t('code', 'config-reference', 'const token = config.github.token\nconst secret = settings.webhookSecret'),
  t('code', 'react-key', '{items.map((item) => <Row key={item.id} token={item.token} />)}'),
  t('code', 'sql', 'SELECT id, email, password_hash FROM users WHERE reset_token IS NULL LIMIT 50;'),
  t('code', 'regex', 'const PASSWORD = /^(?=.*\\d)(?=.*[a-z]).{12,}$/ // at least 12 characters'),
  t(
    'code',
    'function',
    'function refreshToken(session: Session) {\n  return session.refresh_token ? renew(session) : login()\n}',
  ),
  t(
    'code',
    'go-struct',
    'type Config struct {\n\tAPIKey string `json:"api_key"`\n\tSecret string `json:"secret"`\n}',
  ),
  t(
    'code',
    'yaml-secret-ref',
    'env:\n  - name: OPENAI_API_KEY\n    valueFrom:\n      secretKeyRef:\n        name: openai\n        key: api-key',
  ),
  t(
    'code',
    'github-actions',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow's expression, as GitHub Actions writes it
    'env:\n  OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\n  TOKEN: ${{ github.token }}',
  ),
  t(
    'code',
    'terraform',
    'resource "aws_secretsmanager_secret" "db" {\n  name = "prod/db/password"\n  recovery_window_in_days = 7\n}',
  ),
  t('code', 'dockerfile', 'ARG NPM_TOKEN\nRUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci'),
  t(
    'code',
    'bash-flags',
    'curl -sS -H "Authorization: Bearer $TOKEN" -H "X-Api-Key: $API_KEY" "$BASE_URL/v1/items?limit=20"',
  ),
  t(
    'code',
    'git-diff',
    'diff --git a/src/auth.ts b/src/auth.ts\nindex 3f2a9c1..8b4e0d7 100644\n--- a/src/auth.ts\n+++ b/src/auth.ts',
  ),
  t(
    'code',
    'package-lock',
    '"integrity": "sha512-dUNBmvVJj4cMJhPwS4+NNPOLhjIwCB2jTjr7RBnNlZxo5WmgkBKWnQpXkhCONDvr9pt2m8MTQVLB+K9h2dsuhg=="',
  ),
  t(
    'code',
    'base64-image',
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  ),
  t('code', 'unicode-escapes', 'const greeting = "caf\\u00e9 \\u2014 na\\u00efve r\\u00e9sum\\u00e9"'),
  t(
    'code',
    'json-with-escapes',
    '{"path":"C:\\\\Users\\\\ada\\\\project","url":"https:\\/\\/example.com\\/docs"}',
  ),
  t('code', 'css', '.token.keyword { color: #cf222e; } .token.string { color: #0a3069; }'),
  t('code', 'tool-schema', {
    type: 'function',
    function: {
      name: 'create_api_key',
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          password: { type: 'string', description: 'The account password' },
        },
        required: ['name'],
      },
    },
  }),
  t(
    'code',
    'test-fixture',
    "expect(login({ user: 'ada', password: 'wrong' })).rejects.toThrow('Invalid password')",
  ),
  // Logs
  t(
    'log',
    'request-log',
    '2026-12-01T10:32:11.482Z INFO  POST /v1/chat/completions 200 1423ms req_id=req_8f3a2b1c9d',
  ),
  t('log', 'uuid-log', 'order 3f9a8b7c-6d5e-4f3a-a2b1-0c9d8e7f6a5b shipped to warehouse eu-west-1'),
  t('log', 'commit', 'Fixed in commit 8b4e0d7a1c2f3e4d5b6a7980c1d2e3f4a5b6c7d8 (tree a1b2c3d4e5f6).'),
  t(
    'log',
    'k8s-pod',
    'pod/api-7d9f8c6b5-x2k4q Running 0 3h12m; container api-server image sha256:4b2e1f0a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f',
  ),
  t('log', 'redacted-auth', 'Authorization: Bearer [REDACTED]\nCookie: <redacted>'),
  t('log', 'cookie-preferences', '> Cookie: theme=dark; lang=en-US; tz=Europe/Paris'),
  t('log', 'set-cookie-prefs', '< Set-Cookie: consent=yes; Path=/; Max-Age=31536000; SameSite=Lax'),
  t(
    'log',
    'stack-trace',
    "TypeError: Cannot read properties of undefined (reading 'token')\n    at refresh (/app/src/auth.ts:42:17)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
  ),
  t(
    'log',
    'rate-limit',
    'x-ratelimit-remaining-tokens: 149984 x-ratelimit-reset-tokens: 6ms x-ratelimit-limit-requests: 10000',
  ),
  t(
    'log',
    'npm-log',
    'npm warn deprecated inflight@1.0.6: This module is not supported; npm notice New major version 11.0.0',
  ),
  t(
    'log',
    'login-failed',
    'WARN auth: login failed for user=ada reason=invalid_password attempts=3 ip=10.0.3.7',
  ),
  t('log', 'trace-ids', 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
  t(
    'log',
    'docker-build',
    '#7 [build 3/6] RUN npm ci --omit=dev\n#7 DONE 12.3s\nwriting image sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a49382716051f4e3d2c1b0 done',
  ),
  t('log', 'sizes', 'bundle.js 1024 kB │ gzip: 312.45 kB │ map: 2048 kB; built in 12.81s'),
  t('log', 'dates', 'Report for 2026-12-01 to 2026-12-12: 12 runs, 1024 tokens each, 3600 s timeout'),
  t(
    'log',
    'ssh-known-host',
    "Warning: Permanently added 'github.com' (ED25519) to the list of known hosts. SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU",
  ),
  t(
    'log',
    'pgp-fingerprint',
    'gpg: key 4AEE18F83AFDEB23: public key "GitHub (web-flow commit signing) <noreply@github.com>" imported',
  ),
  // API payloads
  t('payload', 'openai-usage', {
    usage: {
      prompt_tokens: 1234,
      completion_tokens: 56,
      total_tokens: 1290,
      prompt_tokens_details: { cached_tokens: 1024 },
    },
  }),
  t('payload', 'openai-logprobs', {
    logprobs: {
      content: [
        {
          token: 'Hello',
          logprob: -0.0012,
          bytes: [72, 101, 108, 108, 111],
          top_logprobs: [{ token: ' Hi', logprob: -6.9 }],
        },
      ],
    },
  }),
  t('payload', 'anthropic-thinking', {
    content: [
      {
        type: 'thinking',
        thinking: 'The user wants a refund for the duplicate charge.',
        signature:
          'EqQBCkYIARgCIkBAnPPmDMf8kjK3Hn2LxV0t9ZBhO4Zt2mQ1wW8JfP5sTqRvL3yNcD6uXeA7bG0iHkM9oS4jU1lE2rF5gY8vKzCAAwEgx3qR7pLmN0sT2vW4yZ6aBcDeFgHiJkLmNoPqRsTuVwXyZ',
      },
      { type: 'text', text: 'I have refunded the duplicate payment.' },
    ],
  }),
  t('payload', 'oauth-token-shape', {
    token_type: 'Bearer',
    expires_in: 3599,
    scope: 'openid email profile',
    refresh_token_expires_in: 7776000,
  }),
  t('payload', 'jwk-public', {
    keys: [
      {
        kty: 'RSA',
        kid: '2024-09',
        use: 'sig',
        alg: 'RS256',
        e: 'AQAB',
        n: 'u1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0_IzW7yWR7QkrmBL7jTKEn5u-qKhbwKfBstIs-bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW_VDL5AaWTg0nLVkjRo9z-40RQzuVaE8AkAFmxZzow3x-VJYKdjykkJ0iT9wCS0DRTXu269V264Vf_3jvredZiKRkgwlL9xNAwxXFg0x_XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC-9aGVd-Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmw',
      },
    ],
  }),
  t('payload', 'stripe-charge', {
    id: 'ch_3PkX2a2eZvKYlo2C1a0bC9dE',
    object: 'charge',
    amount: 2000,
    currency: 'eur',
    payment_intent: 'pi_3PkX2a2eZvKYlo2C1fGhIjKl',
    status: 'succeeded',
  }),
  t('payload', 'github-commit', {
    sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
    node_id: 'MDY6Q29tbWl0NmRjYjA5YjViNTc4NzVmMzM0ZjYxYWViZWQ2OTVlMmU0MTkzZGI1ZQ==',
    author: { login: 'octocat' },
  }),
  t(
    'payload',
    'redis-keys',
    'KEYS user:*\n1) "key-5d41402abc4b2a76b9719d911017c592"\n2) "key-7d793037a0760186574b0282f2f435e7"',
  ),
  t(
    'payload',
    'secret-arn',
    'secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db/password-AbCdEf',
  ),
  t('payload', 'secret-arn-json', {
    SecretId: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-key-Xy12Ab',
    VersionStage: 'AWSCURRENT',
  }),
  t('payload', 'gcp-secret-name', {
    name: 'projects/acme-prod/secrets/openai-api-key/versions/3',
    state: 'ENABLED',
  }),
  t('payload', 'validation-errors', {
    errors: { password: 'must be at least 12 characters', token: 'has expired', api_key: 'is required' },
  }),
  t('payload', 'key-values', { key: 'INV-412', value: 'refund pending', token: 'Hello', session: 'morning' }),
  t('payload', 'session-id', {
    session_id: 'sess_2J8kfQ9LmN3pX7vR',
    api_key_id: 'key_01HX2Y3Z4A5B6C7D8E9F',
    token_count: 412,
  }),
  t('payload', 'cache-key', {
    cache_key: 'a3f5b8c2d9e1f4a7b0c3d6e9f2a5b8c1',
    idempotency_key: 'refund-INV-412-1',
  }),
  t('payload', 'mcp-result', {
    content: [{ type: 'text', text: 'Found 3 invoices for customer cus_Q2w3E4r5T6y7' }],
    isError: false,
  }),
  t('payload', 'tool-call-args', {
    tool_calls: [
      {
        id: 'call_Xk2mP9qL4nR7sT1v',
        type: 'function',
        function: { name: 'lookup_invoice', arguments: '{"invoice_id":"INV-412","include_lines":true}' },
      },
    ],
  }),
  t('payload', 'model-list', {
    data: [
      { id: 'gpt-4o-mini-2024-07-18' },
      { id: 'claude-sonnet-4-5-20250929' },
      { id: 'gemini-2.5-pro' },
      { id: 'o3-mini-high' },
    ],
  }),
  t('payload', 'password-policy', {
    password_policy: { min_length: 12, require_digit: true, max_age_days: 90 },
    token_ttl: 3600,
  }),
  t(
    'payload',
    'signed-url-docs',
    'Signed URLs carry X-Amz-Signature=<signature> and X-Amz-Credential=<key-id>/<date>/<region>/s3/aws4_request.',
  ),
  t('payload', 'pagination', {
    next_page_token: 'CiAKGjBpNDd2Nmp2Zml2cXRyaWwSAggQGgkIAhCAgICA',
    nextToken: 'eyJsYXN0IjoiSU5WLTQxMiJ9',
  }),
  t('payload', 'webhook-event', {
    id: 'evt_1PkX2a2eZvKYlo2CqRsTuVwX',
    type: 'invoice.paid',
    livemode: false,
    pending_webhooks: 1,
  }),
  t(
    'payload',
    'html-form',
    '<form method="post"><input type="password" name="password" autocomplete="current-password"><input type="hidden" name="csrf" value=""></form>',
  ),
  t(
    'payload',
    'url-with-cursor',
    'https://api.example.com/v1/items?page_token=CiAKGjBpNDd2&limit=50&sort=created',
  ),
  t('payload', 'url-with-key-param', 'https://maps.example.com/search?key=INV-412&q=Paris&session=morning'),
  t(
    'payload',
    'azure-urls',
    'https://acme.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
  ),
  t(
    'payload',
    'base64-json',
    Buffer.from('{"invoice":"INV-412","total":49.99,"currency":"EUR"}').toString('base64'),
  ),
  t(
    'payload',
    'gzip-of-prose',
    gzipSync('Refund the duplicate payment only; the token budget is 1024.').toString('base64'),
  ),
  t(
    'payload',
    'data-url-text',
    `data:text/plain;base64,${Buffer.from('Refund the duplicate payment only.').toString('base64')}`,
  ),
  t(
    'payload',
    'gzip-of-json',
    gzipSync(JSON.stringify({ token_count: 12, password_policy: 'strong' })).toString('base64'),
  ),
  t(
    'payload',
    'escaped-tool-args',
    '{"note":"Customer\\u0027s invoice INV\\u002d412 was charged twice","amount":49.99}',
  ),
  t(
    'payload',
    'nested-json-text',
    JSON.stringify({ payload: JSON.stringify({ invoice: 'INV-412', token_count: 12 }) }),
  ),
  t('payload', 'ollama-stats', {
    model: 'llama3.2',
    done: true,
    total_duration: 5043500667,
    prompt_eval_count: 26,
    eval_count: 298,
  }),
  t('payload', 'gemini-usage', {
    usageMetadata: {
      promptTokenCount: 1024,
      candidatesTokenCount: 12,
      totalTokenCount: 1036,
      thoughtsTokenCount: 0,
    },
  }),
  t('payload', 'netrc-doc', 'A .netrc line has the form: machine <host> login <user> password <password>'),
  t(
    'payload',
    'cookie-doc',
    'Send the session back with Cookie: session=<value>; the server answers with Set-Cookie.',
  ),
  t(
    'payload',
    'sha-sums',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt\nd41d8cd98f00b204e9800998ecf8427e  empty.md5',
  ),
  t('payload', 'ipfs', 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/metadata.json'),
  t(
    'payload',
    'long-words',
    'internationalization antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  ),
  t(
    'payload',
    'file-paths',
    '/home/ada/.config/agent/tokens.json and C:\\Users\\ada\\AppData\\Roaming\\npm\\node_modules',
  ),
  t('payload', 'slugs', 'deploy-2026-12-01-blue, us-east-1, eu-west-1, ap-southeast-2, release-v2.4.1-rc.3'),
  // Documentation examples: published placeholders, not keys.
  t('docs', 'aws-example-key-id', 'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE'),
  t('docs', 'aws-example-secret', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
  t('docs', 'jwt-io-example', `Try it at jwt.io: ${JWT_IO_EXAMPLE}`),
  t('docs', 'jwt-io-bearer', `Authorization: Bearer ${JWT_IO_EXAMPLE}`),
  t('docs', 'your-api-key', 'curl https://api.openai.com/v1/models -H "Authorization: Bearer YOUR_API_KEY"'),
  t('docs', 'sk-dots', 'Set OPENAI_API_KEY=sk-... in your shell, or pass apiKey: "sk-…" to the client.'),
  t('docs', 'xxx-key', 'ANTHROPIC_API_KEY=sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'),
  t('docs', 'angle-placeholders', 'password: <your-password>\napi_key: <api-key>\ntoken: <token>'),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder, as documentation writes it
  t('docs', 'template-placeholders', 'password={{ db_password }}\ntoken=%TOKEN%\nsecret=${SECRET}'),
  t(
    'docs',
    'prefixes-prose',
    'OpenAI keys start with sk-proj-, Anthropic keys with sk-ant-api03-, GitHub tokens with ghp_.',
  ),
  t('docs', 'stars', 'Your key: sk-proj-****************************************abcd'),
  t('docs', 'changeme', 'DB_PASSWORD=changeme\nADMIN_PASSWORD=change-me-please'),
  t('docs', 'redacted-marker', 'api_key=[REDACTED] token=REDACTED password=********'),
  t(
    'docs',
    'pem-public-key',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEVs/o5+uQbTjL3chynL4wXgUg2R9\nq9UU8I5mEovUf86QZ7kOBIjJwqnzD1omageEHWwHdBO6B+dFabmdT9POxg==\n-----END PUBLIC KEY-----',
  ),
  t(
    'docs',
    'certificate',
    '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ1ZGPpPF3Y2l9Q1Zl4u8p0o9bXcwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----',
  ),
  t(
    'docs',
    'ssh-public-key',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@laptop',
  ),
  t('docs', 'basic-prose', 'Basic usage: call the API with a prompt and a token budget.'),
  t('docs', 'bearer-prose', 'The bearer token goes in the Authorization header; never log it.'),
  t('docs', 'sklearn', 'Use an sk-learn-compatible-estimator-with-pipelines here.'),
  t('docs', 'keyword-monkey', 'keyword=monkey&author=ada&tokenizer=cl100k_base&passage=3'),
  t(
    'docs',
    'secret-in-prose',
    'The secret to a good prompt is a clear task; the password policy asks for 12 characters.',
  ),
  t(
    'docs',
    'example-url-password',
    'postgres://user:password@localhost:5432/db and redis://:password@localhost:6379',
  ),
  t('docs', 'sample-dsn', 'DATABASE_URL=postgres://app:<password>@db.internal:5432/app'),
  // Member names that are ids, hashes, paths and URLs, not keys.
  t('payload', 'members-named-by-sha', {
    commits: {
      '3f2a9c1d8b4e0d7a6c5b4a39281706f5e4d3c2b1': { author: 'ada' },
      '9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b': { author: 'grace' },
    },
  }),
  t('payload', 'members-named-by-uuid', {
    sessions: { '3b241101-e2bb-4255-8caf-4136c566a962': { user: 'ada', expires_in: 3600 } },
  }),
  t('payload', 'members-named-by-path', {
    'src/auth/token.ts': { lines: 120 },
    'src/auth/password-reset.ts': { lines: 88 },
  }),
  t('payload', 'members-named-by-url', {
    'https://api.example.com/v1/tokens?page_token=abc': { status: 200 },
  }),
  t('payload', 'members-named-by-header', {
    headers: { 'x-api-key': 'redacted-by-proxy', 'x-ratelimit-remaining-tokens': '39000' },
  }),
  t('payload', 'members-named-by-model', { 'gpt-4o-mini-2024-07-18': { tokens: 1200 } }),
  t('payload', 'members-named-by-token-text', { logprobs: { ' Hello': -0.01, ' world': -0.3 } }),
  // Long lines and blocks that wrap at a column, none a secret.
  t(
    'docs',
    'pem-certificate',
    `-----BEGIN CERTIFICATE-----\n${'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\nRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\nVQQDExlCYWx0aW1vcmUgQ3liZXJUcnVzdCBSb290MB4XDTAwMDUxMjE4NDYwMFoX\n'}-----END CERTIFICATE-----`,
  ),
  t(
    'docs',
    'pem-public-key-wrapped',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n-----END PUBLIC KEY-----',
  ),
  t(
    'log',
    'mime-image-wrapped-76',
    `Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n${Buffer.from(
      Array.from({ length: 171 }, (_, i) => (i * 37 + 11) % 256),
    )
      .toString('base64')
      .replace(/(.{76})/g, '$1\n')}`,
  ),
  t(
    'docs',
    'prose-wrapped-at-72',
    'The integration uses short-lived credentials issued per request by the\nauthentication-service-gateway, so nothing long-lived is kept in the\nconfiguration-management-repository or in the deployment-pipeline-settings.',
  ),
  t(
    'log',
    'long-path-lines',
    '/home/runner/work/acme/acme/node_modules/.pnpm/some-package-with-a-long-name@1.2.3\n/home/runner/work/acme/acme/node_modules/.pnpm/another-long-package-name@4.5.6',
  ),
  t(
    'log',
    'wrapped-sha-list',
    'sha256:3b241101e2bb42558caf4136c566a9623b241101e2bb42558caf4136c566a962\nsha256:9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9b8a7c6d5e4f3a2b1c0d9e8f',
  ),
  // Markup and tables that name credentials without holding one.
  t(
    'code',
    'maven-settings-env-reference',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Maven's own property syntax
    '<server>\n  <id>releases</id>\n  <username>${env.MAVEN_USER}</username>\n  <password>${env.MAVEN_PASSWORD}</password>\n</server>',
  ),
  t(
    'code',
    'dotnet-settings-names',
    '<appSettings>\n  <add key="ApiKeyHeader" value="x-api-key" />\n  <add key="TokenLifetime" value="3600" />\n  <add key="PasswordMinLength" value="12" />\n</appSettings>',
  ),
  t(
    'code',
    'html-password-input',
    '<input type="password" name="password" autocomplete="current-password" />',
  ),
  t(
    'code',
    'xml-token-type',
    '<tokenType>Bearer</tokenType><expiresIn>3600</expiresIn><scope>openid</scope>',
  ),
  t(
    'code',
    'html-entities-prose',
    '<p>Use &quot;Sign in&quot; &amp; then &lt;Settings&gt; &#8594; API keys &mdash; never share them.</p>',
  ),
  t(
    'code',
    'html-escaped-json-config',
    '<div data-config="{&quot;theme&quot;:&quot;dark&quot;,&quot;token_ttl&quot;:3600,&quot;api_key_header&quot;:&quot;x-api-key&quot;}"></div>',
  ),
  t(
    'payload',
    'csv-usage-export',
    'date,model,prompt_tokens,completion_tokens,total_tokens\n2026-12-01,gpt-4o-mini,1200,340,1540\n2026-12-02,gpt-4o,980,120,1100\n',
  ),
  t(
    'payload',
    'csv-key-column-ids',
    'key,summary,status\nPROJ-412,Rotate credentials,Done\nPROJ-413,Add login page,In progress\n',
  ),
  t(
    'payload',
    'csv-password-policy',
    'policy,password_min_length,password_max_age_days\ndefault,12,90\nadmins,16,30\n',
  ),
  t(
    'docs',
    'markdown-options-table',
    '| option | type | description |\n| --- | --- | --- |\n| apiKey | string | Your API key, read from OPENAI_API_KEY |\n| token | string | An access token, if you use one |\n',
  ),
  t(
    'docs',
    'markdown-secret-names-table',
    '| name | secret_name | rotation |\n|---|---|---|\n| db | prod/db/password | 30d |\n| stripe | prod/stripe/key | 90d |\n',
  ),
  t(
    'payload',
    'tsv-token-usage',
    'model\ttokens\tcost\ngpt-4o-mini\t1540\t0.0012\nclaude-sonnet-4-5\t2300\t0.0210\n',
  ),
  // Compatibility characters in ordinary text.
  t('docs', 'full-width-cjk', 'ＡＰＩキーは設定画面で発行します（ｓｋ－で始まります）。'),
  t('docs', 'emoji-zwj', 'Team: 👩‍💻 👨‍👩‍👧 — ship it 🚀'),
  t('docs', 'ligatures-and-superscripts', 'The ﬁrst ﬂow uses x² + y² and 10 ㎞ at 25 ℃.'),
  t('docs', 'soft-hyphens', 'authen\u00adtication and authori\u00adzation tokens expire hourly.'),
  t('docs', 'math-letters', 'Let 𝐱 be the input and 𝐲 the output of the model.'),
  // An environment full of limits: its values are everywhere in ordinary text.
  t('env', 'december-recording', 'Recorded on 2026-12-01 at 12:12, 12 steps.', EVERYDAY_ENV),
  t(
    'env',
    'max-tokens-echo',
    { max_tokens: 1024, model: 'gpt-4o-mini', note: 'capped at 1024 tokens' },
    EVERYDAY_ENV,
  ),
  t('env', 'token-url-echo', 'Exchanging the code at https://auth.example.com/oauth/token', EVERYDAY_ENV),
  t(
    'env',
    'auth-endpoint-echo',
    { authorize: 'https://auth.example.com/authorize?client_id=web&scope=openid' },
    EVERYDAY_ENV,
  ),
  t('env', 'region-echo', 'Secrets Manager in eu-west-1 holds prod/payments.', EVERYDAY_ENV),
  t('env', 'timeout-echo', 'session expired after 3600 s; limit 128000 tokens; key count 3', EVERYDAY_ENV),
  t('env', 'model-echo', 'Answered by gpt-4o-mini in 2 steps.', EVERYDAY_ENV),
  t('env', 'flags-echo', { auth: true, skip_auth: false, expiry: '15m', parallel: 'false' }, EVERYDAY_ENV),
  t('env', 'header-name-echo', 'Send the key in the x-api-key header.', EVERYDAY_ENV),
  t('env', 'plain-word-passwords', 'Connected to postgres and redis on the default ports.', EVERYDAY_ENV),
  t('env', 'askpass-echo', 'core.askPass is /usr/lib/git-core/git-gui--askpass', EVERYDAY_ENV),
  t('env', 'dummy-key-echo', 'The test key is sk-test-dummy.', EVERYDAY_ENV),
  // Everyday texts in bulk: code in many languages, CI configs, logs with their request and trace
  // ids, hashes and cache keys, API objects with their ids, documentation and markup that name
  // credentials without holding one, public keys and certificates, other languages, emoji.
  t(
    'code',
    'rust-env-var',
    'let api_key = std::env::var("OPENAI_API_KEY").expect("set OPENAI_API_KEY first");',
  ),
  t(
    'code',
    'go-getenv',
    'token := os.Getenv("GITHUB_TOKEN")\nif token == "" {\n\tlog.Fatal("GITHUB_TOKEN is not set")\n}',
  ),
  t(
    'code',
    'java-datasource',
    'String password = System.getenv("DB_PASSWORD");\nDataSource ds = DataSourceBuilder.create().username("app").password(password).build();',
  ),
  t(
    'code',
    'kotlin-build-config',
    'val secret = BuildConfig.API_SECRET // injected at build time from local.properties',
  ),
  t(
    'code',
    'csharp-configuration',
    'var key = builder.Configuration["OpenAI:ApiKey"] ?? throw new InvalidOperationException("OpenAI:ApiKey is missing");',
  ),
  t(
    'code',
    'ruby-env-fetch',
    'Stripe.api_key = ENV.fetch("STRIPE_SECRET_KEY")\nStripe.max_network_retries = 2',
  ),
  t(
    'code',
    'php-getenv',
    "$password = getenv('MYSQL_PASSWORD');\n$pdo = new PDO($dsn, 'app', $password, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);",
  ),
  t(
    'code',
    'swift-environment',
    'let token = ProcessInfo.processInfo.environment["API_TOKEN"] ?? ""\nguard !token.isEmpty else { return }',
  ),
  t(
    'code',
    'elixir-runtime-config',
    'config :shop, Shop.Repo,\n  username: "app",\n  password: System.fetch_env!("DB_PASSWORD"),\n  pool_size: 10',
  ),
  t(
    'code',
    'pydantic-settings',
    'class Settings(BaseSettings):\n    openai_api_key: SecretStr\n    database_url: PostgresDsn\n    session_ttl_seconds: int = 3600\n\n    model_config = SettingsConfigDict(env_file=".env")',
  ),
  t(
    'code',
    'python-hash-password',
    'digest = hashlib.sha256(password.encode("utf-8")).hexdigest()\nreturn hmac.compare_digest(digest, stored_digest)',
  ),
  t(
    'code',
    'bash-read-password',
    'read -rsp "Password: " PASSWORD\necho\nexport PGPASSWORD="$PASSWORD"\npsql -h db.internal -U app -c "select 1"',
  ),
  t(
    'code',
    'powershell-credential',
    '$cred = Get-Credential -UserName "ACME\\ada" -Message "Sign in"\n$token = Read-Host -AsSecureString "Token"',
  ),
  t(
    'code',
    'sql-api-keys-table',
    'ALTER TABLE api_keys\n  ADD COLUMN key_hash bytea NOT NULL,\n  ADD COLUMN key_prefix text NOT NULL,\n  ADD COLUMN last_used_at timestamptz;',
  ),
  t(
    'code',
    'sql-grant',
    "CREATE ROLE reporting NOLOGIN;\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO reporting;\nCOMMENT ON ROLE reporting IS 'read-only, no password';",
  ),
  t(
    'code',
    'zod-env-schema',
    'const Env = z.object({\n  OPENAI_API_KEY: z.string().min(20),\n  SESSION_SECRET: z.string().min(32),\n  PORT: z.coerce.number().default(3000),\n})',
  ),
  t(
    'code',
    'react-session',
    'const { data: session } = useSession()\nif (!session?.accessToken) return <SignIn provider="github" />',
  ),
  t(
    'code',
    'express-session',
    'app.use(session({ secret: process.env.SESSION_SECRET!, resave: false, saveUninitialized: false, cookie: { secure: true } }))',
  ),
  t(
    'code',
    'python-requests-bearer',
    'resp = requests.post(url, headers={"Authorization": f"Bearer {token}"}, json=payload, timeout=30)\nresp.raise_for_status()',
  ),
  t(
    'code',
    'ts-fetch-bearer',
    `const res = await fetch(url, { headers: { Authorization: \`Bearer \${await getAccessToken()}\` } })`,
  ),
  t(
    'code',
    'go-test-table',
    'tests := []struct{ name, password string; wantErr error }{\n\t{"empty", "", ErrEmpty},\n\t{"short", "abc", ErrTooShort},\n}',
  ),
  t(
    'code',
    'rust-token-response',
    '#[derive(Deserialize)]\nstruct TokenResponse {\n    access_token: String,\n    token_type: String,\n    expires_in: u64,\n    refresh_token: Option<String>,\n}',
  ),
  t(
    'code',
    'haskell-credentials',
    'data Credentials = Credentials\n  { username :: Text\n  , password :: Text\n  } deriving (Show, Generic)',
  ),
  t(
    'code',
    'c-argv-password',
    'if (strcmp(argv[i], "--password") == 0) {\n    prompt_password(buf, sizeof buf);\n    continue;\n}',
  ),
  t(
    'code',
    'nginx-proxy-auth',
    'location /api/ {\n    proxy_set_header Authorization $http_authorization;\n    proxy_pass http://upstream;\n}',
  ),
  t(
    'code',
    'python-redact-url',
    'clean = re.sub(r"(api_key=)[^&]+", r"\\1***", url)\nlogger.info("calling %s", clean)',
  ),
  t(
    'code',
    'test-fixture-passphrase',
    "const user = await createUser({ email: 'ada@example.com', password: 'correct horse battery staple' })",
  ),
  t(
    'code',
    'jest-mock-token',
    "jest.spyOn(auth, 'getToken').mockResolvedValue('test-token')\nexpect(await client.me()).toEqual({ login: 'ada' })",
  ),
  t(
    'code',
    'terraform-sensitive-variable',
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n\noutput "db_host" { value = aws_db_instance.main.address }',
  ),
  t(
    'code',
    'ansible-vault-reference',
    'ansible_become_password: "{{ vault_become_password }}"\nansible_user: deploy',
  ),
  t(
    'code',
    'helm-existing-secret',
    'auth:\n  existingSecret: openai-credentials\n  secretKeys:\n    apiKey: api-key\nresources:\n  limits: { cpu: 500m, memory: 512Mi }',
  ),
  t(
    'code',
    'compose-secret-files',
    'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password\n    secrets: [postgres_password]\nsecrets:\n  postgres_password:\n    file: ./secrets/postgres_password.txt',
  ),
  t(
    'code',
    'spring-placeholders',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Spring's own property placeholders
    'spring:\n  datasource:\n    url: jdbc:postgresql://db.internal:5432/app\n    username: ${DB_USER}\n    password: ${DB_PASSWORD}',
  ),
  t(
    'code',
    'pip-conf-placeholders',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: pip expands environment variables in its config
    '[global]\nindex-url = https://${PIP_USER}:${PIP_PASSWORD}@pypi.example.com/simple\ntimeout = 30',
  ),
  t(
    'code',
    'nuget-config-env',
    '<packageSourceCredentials>\n  <github>\n    <add key="Username" value="ada" />\n    <add key="ClearTextPassword" value="%GITHUB_PACKAGES_TOKEN%" />\n  </github>\n</packageSourceCredentials>',
  ),
  t(
    'code',
    'dotenv-example',
    'OPENAI_API_KEY=\nDATABASE_URL=postgres://user:password@localhost:5432/app\nSESSION_SECRET=change-me\nLOG_LEVEL=info',
  ),
  t(
    'code',
    'ini-password-file',
    '[database]\nhost = db.internal\nuser = app\npassword_file = /etc/app/db.pass\nsslmode = verify-full',
  ),
  t(
    'code',
    'openapi-security-schemes',
    'components:\n  securitySchemes:\n    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n    bearerAuth:\n      type: http\n      scheme: bearer\n      bearerFormat: JWT',
  ),
  t(
    'code',
    'esbuild-chunk-names',
    `dist/assets/index-${id.alnum(8)}.js   142.31 kB\ndist/assets/vendor-${id.alnum(8)}.js  312.04 kB\ndist/assets/index-${id.alnum(8)}.css  18.20 kB`,
  ),
  t(
    'code',
    'stripe-js-publishable',
    `const stripe = await loadStripe('pk_live_${id.alnum(99)}')\nconst elements = stripe.elements({ clientSecret })`,
  ),
  t(
    'code',
    'posthog-init',
    `posthog.init('phc_${id.alnum(43)}', { api_host: 'https://eu.i.posthog.com', person_profiles: 'identified_only' })`,
  ),
  t(
    'code',
    'sentry-dsn',
    `Sentry.init({\n  dsn: 'https://${id.hex(32)}@o${id.digits(6)}.ingest.sentry.io/${id.digits(7)}',\n  tracesSampleRate: 0.1,\n})`,
  ),
  t('code', 'recaptcha-site-key', `<div class="g-recaptcha" data-sitekey="6Lc${id.dashed(37)}"></div>`),
  t('code', 'analytics-ids', "gtag('config', 'G-7QX2M4N6P8');\n<!-- Google Tag Manager: GTM-5K2X9QZ -->"),
  t(
    'code',
    'google-oauth-client-id',
    `const client = new OAuth2Client('${id.digits(12)}-${id.lowerDigits(32)}.apps.googleusercontent.com')`,
  ),
  t(
    'code',
    'cognito-config',
    `{ "region": "eu-west-1", "userPoolId": "eu-west-1_${id.alnum(9)}", "userPoolWebClientId": "${id.lowerDigits(26)}" }`,
  ),
  t(
    'code',
    'algolia-search-client',
    `const search = algoliasearch('${id.upperDigits(10)}', '${id.hex(32)}') // search-only, safe in the browser`,
  ),
  t(
    'code',
    'mapbox-public-token',
    `mapboxgl.accessToken = 'pk.${Buffer.from(JSON.stringify({ u: 'acme', a: id.lowerDigits(25) })).toString('base64url')}.${id.dashed(22)}'`,
  ),
  // CI configs
  t(
    'code',
    'gitlab-ci-registry-login',
    'build:\n  script:\n    - echo "$CI_REGISTRY_PASSWORD" | docker login -u "$CI_REGISTRY_USER" --password-stdin "$CI_REGISTRY"\n    - docker build -t "$CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA" .',
  ),
  t(
    'code',
    'circleci-npmrc',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, as the config writes it
    '- run:\n    name: Authenticate with registry\n    command: echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > ~/.npmrc',
  ),
  t(
    'code',
    'actions-oidc-permissions',
    'permissions:\n  id-token: write\n  contents: read\njobs:\n  deploy:\n    uses: ./.github/workflows/deploy.yml\n    secrets: inherit',
  ),
  t(
    'code',
    'actions-configure-aws',
    '- uses: aws-actions/configure-aws-credentials@v4\n  with:\n    role-to-assume: arn:aws:iam::123456789012:role/github-deploy\n    aws-region: eu-west-1',
  ),
  t(
    'code',
    'azure-pipelines-key-vault',
    "- task: AzureKeyVault@2\n  inputs:\n    azureSubscription: 'prod-connection'\n    KeyVaultName: 'acme-kv'\n    SecretsFilter: 'db-password,openai-key'\n    RunAsPreJob: true",
  ),
  t(
    'code',
    'jenkins-with-credentials',
    "withCredentials([string(credentialsId: 'openai-api-key', variable: 'OPENAI_API_KEY')]) {\n  sh 'npm test'\n}",
  ),
  t('code', 'travis-encrypted', `env:\n  global:\n    - secure: "${b64(256)}"`),
  t(
    'code',
    'dependabot-registries',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow's expression, as Dependabot reads it
    'registries:\n  npm-github:\n    type: npm-registry\n    url: https://npm.pkg.github.com\n    token: ${{secrets.PACKAGES_READ_TOKEN}}',
  ),
  t(
    'code',
    'pre-commit-gitleaks',
    'repos:\n  - repo: https://github.com/gitleaks/gitleaks\n    rev: v8.21.2\n    hooks:\n      - id: gitleaks',
  ),
  t(
    'log',
    'actions-masked-token',
    'Run actions/checkout@v4\n  with:\n    repository: acme/agent\n    token: ***\n    ssh-strict: true\n    persist-credentials: true',
  ),
  t(
    'code',
    'actions-cache-key',
    `Cache restored from key: node-cache-Linux-x64-pnpm-${id.hex(64)}\nCache Size: ~312 MB (327155712 B)`,
  ),
  // Logs with their ids
  t(
    'log',
    'nginx-access-log',
    `10.0.3.7 - - [01/Dec/2026:10:32:11 +0000] "GET /v1/items?page=2&limit=50 HTTP/1.1" 200 512 "-" "curl/8.5.0" rid=${id.hex(32)} rt=0.012`,
  ),
  t(
    'log',
    'lambda-report',
    (() => {
      const rid = uuid()
      return `START RequestId: ${rid} Version: $LATEST\nEND RequestId: ${rid}\nREPORT RequestId: ${rid}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB`
    })(),
  ),
  t('log', 'otel-span', {
    traceId: id.hex(32),
    spanId: id.hex(16),
    parentSpanId: id.hex(16),
    name: 'POST /v1/chat/completions',
    kind: 'SPAN_KIND_CLIENT',
    attributes: { 'gen_ai.usage.input_tokens': 1024, 'gen_ai.request.model': 'gpt-4o-mini' },
  }),
  t(
    'log',
    'datadog-trace-ids',
    `2026-12-01 10:32:11 INFO [dd.trace_id=${id.digits(19)} dd.span_id=${id.digits(19)}] refund issued for INV-412`,
  ),
  t(
    'log',
    'cloudfront-headers',
    `x-cache: Miss from cloudfront\nvia: 1.1 ${id.hex(32)}.cloudfront.net (CloudFront)\nx-amz-cf-pop: CDG50-P2\nx-amz-cf-id: ${b64url(42)}==`,
  ),
  t('log', 'cf-ray', `cf-ray: ${id.hex(16)}-CDG\ncf-cache-status: DYNAMIC\nserver: cloudflare`),
  t(
    'log',
    'openai-request-id',
    `x-request-id: req_${id.hex(32)}\nopenai-processing-ms: 812\nopenai-version: 2020-10-01`,
  ),
  t(
    'log',
    'anthropic-request-id',
    `request-id: req_011C${id.alnum(20)}\nanthropic-organization-id: ${uuid()}`,
  ),
  t(
    'log',
    'stripe-request-id',
    `Request-Id: req_${id.alnum(14)}\nIdempotency-Key: ${uuid()}\nStripe-Version: 2024-06-20`,
  ),
  t('log', 'sentry-event-id', `Sentry captured event ${id.hex(32)} (level=error, release=agent@2.4.1)`),
  t('log', 'gradle-build-scan', `Publishing build scan...\nhttps://scans.gradle.com/s/${id.lowerDigits(13)}`),
  t(
    'log',
    'pip-hashes',
    `requests==2.32.3 \\\n    --hash=sha256:${id.hex(64)} \\\n    --hash=sha256:${id.hex(64)}`,
  ),
  t(
    'log',
    'go-sum',
    `golang.org/x/crypto v0.31.0 h1:${b64(32)}\ngolang.org/x/crypto v0.31.0/go.mod h1:${b64(32)}`,
  ),
  t(
    'log',
    'yarn-lock-checksum',
    `"lodash@npm:^4.17.21":\n  version: 4.17.21\n  resolution: "lodash@npm:4.17.21"\n  checksum: 10c0/${id.hex(128)}`,
  ),
  t(
    'log',
    'cargo-lock',
    `[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${id.hex(64)}"`,
  ),
  t(
    'log',
    'postgres-connection-log',
    'LOG:  connection authorized: user=app database=app SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)',
  ),
  t(
    'log',
    'postgres-auth-failed',
    'FATAL:  password authentication failed for user "app"\nDETAIL:  Connection matched pg_hba.conf line 99: "host all all 0.0.0.0/0 scram-sha-256"',
  ),
  t(
    'log',
    'sshd-publickey',
    `Accepted publickey for deploy from 10.0.3.7 port 52214 ssh2: ED25519 SHA256:${b64(32).replace(/=+$/, '')}`,
  ),
  t(
    'log',
    'kubelet-pulled',
    `Successfully pulled image "ghcr.io/acme/api@sha256:${id.hex(64)}" in 2.104s (2.104s including waiting)`,
  ),
  t('log', 'vault-audit-hmac', {
    type: 'response',
    auth: { accessor: `hmac-sha256:${id.hex(64)}`, display_name: 'approle', policies: ['default', 'ci'] },
    request: { path: 'secret/data/ci/npm', operation: 'read' },
  }),
  t(
    'log',
    'git-signed-commit',
    `commit ${id.hex(40)}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n ${wrapped(b64(120), 64).replace(/\n/g, '\n ')}\n -----END PGP SIGNATURE-----\nAuthor: Ada <ada@example.com>`,
  ),
  t(
    'log',
    'git-push-remote',
    "remote: Create a pull request for 'feature/token-refresh' on GitHub by visiting:\nremote:      https://github.com/acme/api/pull/new/feature/token-refresh",
  ),
  t(
    'log',
    'terraform-plan-sensitive',
    '  # aws_db_instance.main will be updated in-place\n  ~ resource "aws_db_instance" "main" {\n      ~ password = (sensitive value)\n        id       = "prod-db"\n    }',
  ),
  t(
    'log',
    'kubectl-get-secrets',
    'NAME                 TYPE                             DATA   AGE\nopenai-credentials   Opaque                           1      12d\nregistry-pull        kubernetes.io/dockerconfigjson   1      90d',
  ),
  t(
    'log',
    'docker-login-warning',
    'WARNING! Your password will be stored unencrypted in /root/.docker/config.json.\nConfigure a credential helper to remove this warning.\nLogin Succeeded',
  ),
  t(
    'log',
    'pytest-parametrize',
    'tests/test_auth.py::test_login[empty-password] PASSED\ntests/test_auth.py::test_login[expired-token] PASSED\ntests/test_auth.py::test_login[valid] FAILED',
  ),
  t('log', 'structured-log-ids', {
    level: 'info',
    msg: 'refund issued',
    user_id: `usr_${id.alnum(16)}`,
    session_id: id.hex(32),
    request_id: uuid(),
    trace_id: id.hex(32),
  }),
  t(
    'log',
    'java-stack-trace',
    'javax.security.auth.login.LoginException: Invalid password for user ada\n\tat com.acme.auth.LdapLogin.login(LdapLogin.java:88)\n\tat com.acme.api.SessionController.create(SessionController.java:41)',
  ),
  t(
    'log',
    'turbo-cache',
    `• Packages in scope: api, web\n• Running build in 2 packages\napi:build: cache hit, replaying logs ${id.hex(16)}\nweb:build: cache miss, executing ${id.hex(16)}`,
  ),
  t(
    'log',
    'nx-cache',
    `> nx run api:build  [existing outputs match the cache, left as is]\nNx read the output from the cache instead of running the command for 1 out of 2 tasks (hash ${id.digits(20)}).`,
  ),
  t(
    'log',
    'etag-headers',
    `etag: W/"${id.hex(32)}"\nlast-modified: Tue, 01 Dec 2026 10:32:11 GMT\ncache-control: private, max-age=60`,
  ),
  t(
    'log',
    'webhook-delivery-headers',
    `X-GitHub-Event: pull_request\nX-GitHub-Delivery: ${uuid()}\nX-Hub-Signature-256: sha256=${id.hex(64)}`,
  ),
  t('log', 'stripe-signature-header', `Stripe-Signature: t=1733051531,v1=${id.hex(64)},v0=${id.hex(64)}`),
  t(
    'log',
    'csp-nonce',
    `content-security-policy: script-src 'self' 'nonce-${b64(16)}' 'strict-dynamic'; object-src 'none'`,
  ),
  t(
    'log',
    'hsts-headers',
    'strict-transport-security: max-age=63072000; includeSubDomains; preload\nx-content-type-options: nosniff\nreferrer-policy: no-referrer',
  ),
  t(
    'log',
    'redis-slowlog',
    `1) 1) (integer) 14\n   2) (integer) 1733051531\n   3) (integer) 10234\n   4) 1) "HGETALL"\n      2) "cache:invoice:${id.hex(32)}"`,
  ),
  t(
    'log',
    'mongodb-object-ids',
    `{ _id: ObjectId('${id.hex(24)}'), order: ObjectId('${id.hex(24)}'), status: 'shipped' }`,
  ),
  t('log', 'ulid-ids', `events: ${ulid()}, ${ulid()}, ${ulid()}`),
  t('log', 'ksuid-nanoid', `ksuid=${id.alnum(27)} nanoid=${id.dashed(21)} cuid=c${id.lowerDigits(24)}`),
  t('log', 'snowflake-ids', `message ${id.digits(19)} in channel ${id.digits(18)} by user ${id.digits(18)}`),
  t(
    'log',
    'uuid-v7-list',
    `${id.hex(8)}-${id.hex(4)}-7${id.hex(3)}-8${id.hex(3)}-${id.hex(12)}\n${id.hex(8)}-${id.hex(4)}-7${id.hex(3)}-9${id.hex(3)}-${id.hex(12)}`,
  ),
  t(
    'log',
    'digests-of-artifacts',
    `md5 ${id.hex(32)}\nsha1 ${id.hex(40)}\nsha512 ${id.hex(128)}\nblake3 ${id.hex(64)}`,
  ),
  t(
    'log',
    'sri-integrity',
    `<script src="https://cdn.example.com/lib.js" integrity="sha384-${b64(48)}" crossorigin="anonymous"></script>`,
  ),
  t('log', 'hashed-filenames', `main.${id.hex(8)}.js main.${id.hex(20)}.css chunk-${id.upperDigits(8)}.js`),
  t('log', 'ethereum-tx', `tx 0x${id.hex(64)} from 0x${id.hex(40)} to 0x${id.hex(40)} value 0.05 ETH`),
  t('log', 'bitcoin-address', `Sent 0.001 BTC to bc1q${id.bech32(38).toLowerCase()} (txid ${id.hex(64)})`),
  // API payloads with their ids
  t('payload', 'stripe-customer', {
    id: `cus_${id.alnum(14)}`,
    object: 'customer',
    email: 'ada@example.com',
    invoice_settings: { default_payment_method: `pm_${id.alnum(24)}` },
    livemode: true,
  }),
  t('payload', 'stripe-payment-intent', {
    id: `pi_${id.alnum(24)}`,
    object: 'payment_intent',
    amount: 4999,
    currency: 'eur',
    customer: `cus_${id.alnum(14)}`,
    latest_charge: `ch_${id.alnum(24)}`,
    payment_method: `pm_${id.alnum(24)}`,
    status: 'succeeded',
  }),
  t('payload', 'stripe-subscription', {
    id: `sub_${id.alnum(24)}`,
    items: {
      data: [
        { id: `si_${id.alnum(14)}`, price: { id: `price_${id.alnum(24)}`, product: `prod_${id.alnum(14)}` } },
      ],
    },
    latest_invoice: `in_${id.alnum(24)}`,
  }),
  t('payload', 'stripe-refund-list', {
    object: 'list',
    data: [{ id: `re_${id.alnum(24)}`, balance_transaction: `txn_${id.alnum(24)}`, amount: 4999 }],
    has_more: true,
    url: '/v1/refunds',
  }),
  t('payload', 'stripe-checkout-session', {
    id: `cs_live_${id.alnum(58)}`,
    object: 'checkout.session',
    url: `https://checkout.stripe.com/c/pay/cs_live_${id.alnum(20)}`,
    mode: 'payment',
  }),
  t('payload', 'github-issue', {
    id: Number(id.digits(10)),
    node_id: `I_kwDO${id.dashed(14)}`,
    number: 412,
    title: 'Refresh the token before it expires',
    user: { login: 'octocat', id: 583231, node_id: 'MDQ6VXNlcjU4MzIzMQ==', gravatar_id: '' },
    html_url: 'https://github.com/acme/agent/issues/412',
  }),
  t('payload', 'github-pull-request', {
    number: 413,
    head: { ref: 'feature/token-refresh', sha: id.hex(40) },
    base: { ref: 'main', sha: id.hex(40) },
    merge_commit_sha: id.hex(40),
  }),
  t('payload', 'github-check-run', {
    id: Number(id.digits(11)),
    head_sha: id.hex(40),
    external_id: uuid(),
    status: 'completed',
    conclusion: 'success',
    app: { slug: 'github-actions', client_id: `Iv1.${id.hex(16)}` },
  }),
  t('payload', 'github-release-asset', {
    name: 'agent-tape-2.4.1.tgz',
    browser_download_url: 'https://github.com/acme/agent/releases/download/v2.4.1/agent-tape-2.4.1.tgz',
    digest: `sha256:${id.hex(64)}`,
    size: 183204,
  }),
  t('payload', 'openai-chat-completion', {
    id: `chatcmpl-${id.alnum(29)}`,
    object: 'chat.completion',
    created: 1733051531,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: `fp_${id.hex(10)}`,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: `call_${id.alnum(24)}`,
              type: 'function',
              function: { name: 'refund', arguments: '{"invoice":"INV-412"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
  }),
  t('payload', 'openai-response-object', {
    id: `resp_${id.hex(48)}`,
    object: 'response',
    output: [
      {
        id: `fc_${id.hex(48)}`,
        type: 'function_call',
        call_id: `call_${id.alnum(24)}`,
        name: 'lookup_invoice',
        arguments: '{"id":"INV-412"}',
      },
      { id: `msg_${id.hex(48)}`, type: 'message', content: [{ type: 'output_text', text: 'Refunded.' }] },
    ],
  }),
  t('payload', 'openai-assistants-ids', {
    assistant_id: `asst_${id.alnum(24)}`,
    thread_id: `thread_${id.alnum(24)}`,
    run_id: `run_${id.alnum(24)}`,
    file_ids: [`file-${id.alnum(22)}`],
    vector_store_id: `vs_${id.alnum(24)}`,
  }),
  t('payload', 'openai-batch', {
    id: `batch_${id.hex(32)}`,
    input_file_id: `file-${id.alnum(22)}`,
    output_file_id: `file-${id.alnum(22)}`,
    status: 'completed',
    request_counts: { total: 100, completed: 100, failed: 0 },
  }),
  t('payload', 'openai-embedding', {
    object: 'list',
    data: [
      { object: 'embedding', index: 0, embedding: [0.0023064255, -0.009327292, 0.015797347, -0.0038393438] },
    ],
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 8, total_tokens: 8 },
  }),
  t(
    'payload',
    'openai-org-headers',
    `OpenAI-Organization: org-${id.alnum(24)}\nOpenAI-Project: proj_${id.alnum(24)}`,
  ),
  t('payload', 'anthropic-message', {
    id: `msg_01${id.alnum(22)}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      { type: 'text', text: 'Looking up the invoice.' },
      {
        type: 'tool_use',
        id: `toolu_01${id.alnum(22)}`,
        name: 'lookup_invoice',
        input: { invoice_id: 'INV-412' },
      },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 1024, cache_read_input_tokens: 896, output_tokens: 48 },
  }),
  t('payload', 'anthropic-tool-result', {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: `toolu_01${id.alnum(22)}`,
        content: 'INV-412: 49.99 EUR, paid twice',
      },
    ],
  }),
  t('payload', 'anthropic-batch', {
    id: `msgbatch_01${id.alnum(22)}`,
    processing_status: 'ended',
    request_counts: { succeeded: 12, errored: 0 },
  }),
  t('payload', 'gemini-response-ids', {
    responseId: id.alnum(23),
    modelVersion: 'gemini-2.5-flash',
    createTime: '2026-12-01T10:32:11.123Z',
  }),
  t('payload', 'slack-post-message', {
    ok: true,
    channel: `C0${id.upperDigits(8)}`,
    ts: '1733051531.123456',
    message: {
      bot_id: `B0${id.upperDigits(8)}`,
      team: `T0${id.upperDigits(8)}`,
      text: 'Refund issued for INV-412',
    },
  }),
  t('payload', 'twilio-message', {
    sid: `SM${id.hex(32)}`,
    account_sid: `AC${id.hex(32)}`,
    messaging_service_sid: `MG${id.hex(32)}`,
    status: 'queued',
    uri: '/2010-04-01/Accounts/AC.../Messages/SM....json',
  }),
  t('payload', 'mailgun-message-id', {
    id: `<20261201103211.1.${id.upperDigits(16)}@mg.example.com>`,
    message: 'Queued. Thank you.',
  }),
  t('payload', 'shopify-gids', {
    order: 'gid://shopify/Order/5678901234',
    customer: 'gid://shopify/Customer/1234567890',
    line_items: 3,
  }),
  t('payload', 'sts-caller-identity', {
    UserId: `AROA${id.upperDigits(17)}:ada`,
    Account: '123456789012',
    Arn: 'arn:aws:sts::123456789012:assumed-role/developer/ada',
  }),
  t(
    'payload',
    'gcloud-keys-list',
    `KEY_ID                                    CREATED_AT            EXPIRES_AT\n${id.hex(40)}  2026-11-01T10:00:00Z  9999-12-31T23:59:59Z`,
  ),
  t('payload', 'azure-ids', { tenantId: uuid(), clientId: uuid(), subscriptionId: uuid(), objectId: uuid() }),
  t('payload', 'oidc-discovery', {
    issuer: 'https://accounts.example.com',
    authorization_endpoint: 'https://accounts.example.com/oauth2/authorize',
    token_endpoint: 'https://accounts.example.com/oauth2/token',
    jwks_uri: 'https://accounts.example.com/.well-known/jwks.json',
    response_types_supported: ['code', 'token', 'id_token'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
  }),
  t('payload', 'token-introspection', {
    active: true,
    scope: 'read write',
    client_id: 'web',
    username: 'ada',
    token_type: 'access_token',
    exp: 1733055131,
  }),
  t('payload', 'jwks-ec-public', {
    keys: [{ kty: 'EC', crv: 'P-256', kid: 'k1', use: 'sig', x: b64url(32), y: b64url(32) }],
  }),
  t('payload', 'graphql-login-mutation', {
    query:
      'mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { token expiresAt } }',
    operationName: 'Login',
    variables: { email: 'ada@example.com' },
  }),
  t('payload', 'pagination-cursors', {
    data: [],
    has_more: true,
    next_cursor: Buffer.from(JSON.stringify({ id: 'INV-412', created: 1733051531 })).toString('base64'),
    starting_after: `cus_${id.alnum(14)}`,
  }),
  t('payload', 'weather-tool-result', {
    city: 'Lyon',
    temperature_c: 18.4,
    conditions: 'light rain',
    observed_at: '2026-12-01T10:30:00+01:00',
  }),
  t(
    'payload',
    'sql-result-table',
    ' id  | email            | role  | last_login\n-----+------------------+-------+---------------------\n 412 | ada@example.com  | admin | 2026-12-01 10:32:11\n 413 | grace@example.com | user  | (null)',
  ),
  t('payload', 'npm-view', {
    name: 'agent-tape',
    'dist-tags': { latest: '2.4.1' },
    dist: { shasum: id.hex(40), integrity: `sha512-${b64(64)}` },
  }),
  t('payload', 'docker-manifest', {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      { digest: `sha256:${id.hex(64)}`, size: 1613, platform: { architecture: 'amd64', os: 'linux' } },
    ],
  }),
  t('payload', 'k8s-configmap', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'agent-config', uid: uuid(), resourceVersion: id.digits(8) },
    data: { TOKEN_LIMIT: '128000', AUTH_ISSUER: 'https://accounts.example.com', PASSWORD_MIN_LENGTH: '12' },
  }),
  t('payload', 'feature-flags', {
    flags: { 'new-token-refresh': true, 'password-less-login': false },
    flagsVersion: id.hex(12),
  }),
  t('payload', 'idempotency-record', {
    idempotency_key: uuid(),
    request_hash: id.hex(64),
    response_status: 200,
  }),
  t(
    'payload',
    'datadog-rum-client-token',
    `datadogRum.init({ applicationId: '${uuid()}', clientToken: 'pub${id.hex(32)}', site: 'datadoghq.eu' })`,
  ),
  t('payload', 'webauthn-options', {
    challenge: b64url(32),
    rp: { id: 'example.com', name: 'Acme' },
    user: { id: b64url(16), name: 'ada@example.com', displayName: 'Ada' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  }),
  t('payload', 'base64-png', pngDataUrl()),
  t('payload', 'base64-jpeg-field', {
    image: {
      mime: 'image/jpeg',
      data: Buffer.from(`ffd8ffe000104a46494600010100${id.hex(300)}`, 'hex').toString('base64'),
    },
  }),
  t(
    'payload',
    'svg-data-url',
    `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="7" fill="#0a3069"/></svg>').toString('base64')}`,
  ),
  t(
    'payload',
    'woff2-font',
    `@font-face { font-family: Inter; src: url(data:font/woff2;base64,d09GMgABAAAAA${b64(90)}) format("woff2"); }`,
  ),
  t(
    'payload',
    'gzip-of-html',
    gzipSync(
      '<!doctype html><title>Sign in</title><form><label>Password <input type="password" name="password"></label></form>',
    ).toString('base64'),
  ),
  t(
    'payload',
    'base64-of-csv',
    Buffer.from(
      'date,model,tokens\n2026-12-01,gpt-4o-mini,1540\n2026-12-02,claude-sonnet-4-5,2300\n',
    ).toString('base64'),
  ),
  t(
    'payload',
    'protobuf-base64',
    Buffer.concat([
      Buffer.from([0x0a, 0x24]),
      Buffer.from(uuid()),
      Buffer.from([0x10, 0x08, 0x1a, 0x0b]),
      Buffer.from('gpt-4o-mini'),
    ]).toString('base64'),
  ),
  // Documentation with its published examples and placeholders
  t(
    'docs',
    'aws-credentials-file-example',
    '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = us-west-2',
  ),
  t(
    'docs',
    'aws-env-example',
    'export AWS_ACCESS_KEY_ID=AKIAI44QH8DHBEXAMPLE\nexport AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
  ),
  t(
    'docs',
    'boto3-example',
    "client = boto3.client(\n    's3',\n    aws_access_key_id='AKIAIOSFODNN7EXAMPLE',\n    aws_secret_access_key='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',\n)",
  ),
  t(
    'docs',
    'aws-config-role',
    '[profile dev]\nrole_arn = arn:aws:iam::123456789012:role/developer\nsource_profile = default\nmfa_serial = arn:aws:iam::123456789012:mfa/ada',
  ),
  t('docs', 'curl-jwt-io', `curl -H "Authorization: Bearer ${JWT_IO_EXAMPLE}" https://api.example.com/me`),
  t(
    'docs',
    'postman-variables',
    'GET {{baseUrl}}/v1/items\nAuthorization: Bearer {{accessToken}}\nX-Api-Key: {{apiKey}}',
  ),
  t('docs', 'your-token-here', 'const octokit = new Octokit({ auth: "YOUR_TOKEN_HERE" })'),
  t(
    'docs',
    'angle-bracket-curl',
    'curl -u <username>:<password> https://api.example.com/v1/ping\ncurl -H "X-API-Key: <your-key>" https://api.example.com/v1/items',
  ),
  t(
    'docs',
    'env-var-table',
    '| Variable | Required | Description |\n| --- | --- | --- |\n| `OPENAI_API_KEY` | yes | Your OpenAI key (starts with `sk-`) |\n| `SESSION_SECRET` | yes | 32 random bytes, e.g. from `openssl rand -hex 32` |',
  ),
  t(
    'docs',
    'rotate-keys-guide',
    'To rotate a key: create a new key in the dashboard, deploy it as OPENAI_API_KEY, check the logs for 401s, then revoke the old key. Never paste a key into an issue.',
  ),
  t(
    'docs',
    'oauth-flow-prose',
    'The client exchanges the authorization code for an access token and a refresh token at the token endpoint; the access token lives for an hour, the refresh token for 90 days.',
  ),
  t(
    'docs',
    'password-policy-prose',
    'Passwords must be at least 12 characters long and may not reuse any of the last 5 passwords. Tokens expire after 3600 seconds.',
  ),
  t(
    'docs',
    'markdown-env-block',
    'Put your key in `.env`:\n\n```sh\nANTHROPIC_API_KEY=<your key>\n```\n\nthen run `npm start`.',
  ),
  t(
    'docs',
    'masked-key-listing',
    'NAME        KEY             CREATED\nci          sk-...q3Xf      2026-11-01\nlaptop      sk-...9aB2      2026-10-12',
  ),
  t(
    'docs',
    'redacted-secret-in-docs',
    'The log shows `password=[REDACTED]` and `token=***`: the logger masks both before writing.',
  ),
  t(
    'docs',
    'openssl-commands',
    'openssl genpkey -algorithm ed25519 -out key.pem\nopenssl pkey -in key.pem -pubout -out pub.pem\nopenssl rand -hex 32',
  ),
  t(
    'docs',
    'ssh-keygen-prompt',
    'Generating public/private ed25519 key pair.\nEnter file in which to save the key (/home/ada/.ssh/id_ed25519):\nEnter passphrase (empty for no passphrase):',
  ),
  t(
    'docs',
    'git-credential-helper',
    'git config --global credential.helper store\n# credentials are written to ~/.git-credentials as https://user:token@github.com',
  ),
  t('docs', 'netrc-doc-example', 'machine api.example.com\n  login ada\n  password <your-password>'),
  t(
    'docs',
    'kubernetes-secret-doc',
    'kubectl create secret generic openai-credentials --from-literal=api-key="$OPENAI_API_KEY"',
  ),
  // Markup that names credentials
  t(
    'code',
    'html-login-form',
    '<form action="/session" method="post">\n  <label for="email">Email</label> <input id="email" name="email" type="email">\n  <label for="password">Password</label> <input id="password" name="password" type="password" minlength="12">\n  <button>Sign in</button>\n</form>',
  ),
  t(
    'code',
    'html-api-token-field',
    '<label>API token <input name="api_token" placeholder="paste your token" autocomplete="off"></label>',
  ),
  t(
    'code',
    'android-strings',
    '<resources>\n  <string name="password_hint">Password</string>\n  <string name="token_expired">Your session token expired. Sign in again.</string>\n</resources>',
  ),
  t(
    'code',
    'xml-soap-username-token',
    '<wsse:UsernameToken>\n  <wsse:Username>ada</wsse:Username>\n  <wsse:Password Type="#PasswordText">{{password}}</wsse:Password>\n</wsse:UsernameToken>',
  ),
  t(
    'code',
    'csv-secret-inventory',
    'service,secret_name,rotated_at,owner\npayments,prod/payments/stripe,2026-11-01,ada\nsearch,prod/search/algolia,2026-10-12,grace\n',
  ),
  t(
    'code',
    'markdown-checklist',
    '- [x] Move the API key to the secret store\n- [x] Rotate the database password\n- [ ] Remove the token from the old CI variables',
  ),
  t(
    'code',
    'html-data-attributes',
    '<div data-token-count="412" data-session-timeout="3600" data-password-policy="strong"></div>',
  ),
  t('code', 'json-schema-credentials', {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      apiKey: { type: 'string', minLength: 20, writeOnly: true },
      password: { type: 'string', format: 'password' },
    },
    required: ['apiKey'],
  }),
  t(
    'code',
    'toml-private-index',
    '[[tool.poetry.source]]\nname = "private"\nurl = "https://pypi.example.com/simple"\npriority = "supplemental"',
  ),
  t(
    'code',
    'saml-metadata-cert',
    `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIC${b64(180)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`,
  ),
  // Public keys and certificates, wrapped
  t(
    'docs',
    'certificate-chain',
    `-----BEGIN CERTIFICATE-----\n${wrapped(`MIIFazCCA1OgAwIBAgIR${b64(300)}`)}\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\n${wrapped(`MIIFYDCCBEigAwIBAgIQ${b64(300)}`)}\n-----END CERTIFICATE-----`,
  ),
  t(
    'docs',
    'certificate-request',
    `-----BEGIN CERTIFICATE REQUEST-----\n${wrapped(`MIICvDCCAaQCAQAwdzEL${b64(200)}`)}\n-----END CERTIFICATE REQUEST-----`,
  ),
  t('docs', 'ssh-rsa-public-key', `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${b64(380)} deploy@ci`),
  t(
    'docs',
    'known-hosts',
    `github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${b64(32)}\ngitlab.example.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB${b64(64)}`,
  ),
  t(
    'docs',
    'authorized-keys-options',
    `command="/usr/local/bin/deploy",no-port-forwarding,no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${b64(32)} ci@acme`,
  ),
  t(
    'docs',
    'pgp-public-key-block',
    `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${wrapped(`mDMEZ${b64(260)}`)}\n=${b64(3)}\n-----END PGP PUBLIC KEY BLOCK-----`,
  ),
  t(
    'docs',
    'dkim-record',
    `selector1._domainkey.example.com. 3600 IN TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${b64(240)}"`,
  ),
  t(
    'docs',
    'tls-fingerprints',
    `SHA256 Fingerprint=${id
      .hex(64)
      .toUpperCase()
      .replace(/(..)(?=.)/g, '$1:')}\nSerial Number: ${id.hex(32)}`,
  ),
  t(
    'docs',
    'age-public-key',
    `# created: 2026-12-01T10:32:11Z\n# public key: age1${id.bech32(58).toLowerCase()}`,
  ),
  t(
    'docs',
    'wireguard-public-peer',
    `[Peer]\nPublicKey = ${b64(32)}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.example.com:51820`,
  ),
  // Other languages and scripts
  t(
    'docs',
    'french-password-policy',
    'Le mot de passe doit contenir au moins 12 caractères ; le jeton d’accès expire au bout d’une heure.',
  ),
  t(
    'docs',
    'german-token-note',
    'Das Zugriffstoken läuft nach 3600 Sekunden ab. Passwörter bitte nie per E-Mail verschicken.',
  ),
  t(
    'docs',
    'spanish-api-key',
    'Genera una clave de API en el panel y guárdala en la variable OPENAI_API_KEY; nunca la compartas.',
  ),
  t(
    'docs',
    'portuguese-support',
    'Olá! Seu reembolso da fatura INV-412 foi processado. A senha não foi alterada.',
  ),
  t('docs', 'italian-login', 'Accesso non riuscito: nome utente o password errati. Riprova tra 5 minuti.'),
  t(
    'docs',
    'japanese-settings',
    'APIキーは設定画面の「開発者」タブで発行できます。パスワードは12文字以上にしてください。',
  ),
  t(
    'docs',
    'chinese-token',
    '访问令牌将在一小时后过期，请使用刷新令牌获取新的访问令牌。密码至少需要12个字符。',
  ),
  t('docs', 'korean-password', '비밀번호는 12자 이상이어야 하며, API 키는 설정에서 발급받을 수 있습니다.'),
  t(
    'docs',
    'russian-password',
    'Пароль должен содержать не менее 12 символов. Токен доступа действует один час.',
  ),
  t(
    'docs',
    'arabic-password',
    'يجب أن تتكون كلمة المرور من 12 حرفًا على الأقل، وتنتهي صلاحية رمز الوصول بعد ساعة.',
  ),
  t('docs', 'hindi-support', 'आपका रिफंड संसाधित हो गया है। कृपया अपना पासवर्ड किसी के साथ साझा न करें।'),
  t(
    'docs',
    'turkish-polish-greek',
    'Şifreniz en az 12 karakter olmalı. Hasło musi mieć co najmniej 12 znaków. Ο κωδικός πρέπει να έχει 12 χαρακτήρες.',
  ),
  t(
    'docs',
    'hebrew-vietnamese-thai',
    'הסיסמה חייבת להכיל 12 תווים. Mật khẩu phải có ít nhất 12 ký tự. รหัสผ่านต้องมีอย่างน้อย 12 ตัวอักษร',
  ),
  // Emoji
  t('docs', 'emoji-skin-tones-flags', 'Great job 👍🏽👏🏿 — shipping to 🇫🇷 🇩🇪 🇯🇵 next week; keycaps 1️⃣2️⃣3️⃣'),
  t(
    'docs',
    'gitmoji-log',
    '✨ feat: refresh the token before it expires\n🐛 fix: do not log the password field\n🔒️ chore: rotate CI credentials',
  ),
  t('docs', 'emoji-chat', 'Refund done ✅ INV-412 → 49,99 € 💸 (took 2 tries 😅)'),
  // A CI runner's environment: its ids and refs turn up in every log.
  t(
    'env',
    'ci-sha-echo',
    `Checked out ${CI_ENV.GITHUB_SHA} (refs/heads/main) for run ${CI_ENV.GITHUB_RUN_ID}`,
    CI_ENV,
  ),
  t(
    'env',
    'ci-oidc-echo',
    'Requesting an OIDC token from https://pipelines.actions.githubusercontent.com/oidc/token for sts.amazonaws.com',
    CI_ENV,
  ),
  t(
    'env',
    'ci-paths-echo',
    'Wrote /home/runner/work/_temp/.npmrc; using /home/runner/.ssh/id_ed25519 for git',
    CI_ENV,
  ),
  t(
    'env',
    'ci-status-echo',
    { ci: true, os: 'Linux', repository: 'acme/agent', secret_scanning: 'enabled' },
    CI_ENV,
  ),
  t(
    'env',
    'ci-summary-echo',
    `Run ${CI_ENV.GITHUB_RUN_ID} on Linux: 412 tests passed, secret scanning enabled, commit ${CI_ENV.GITHUB_SHA!.slice(0, 7)}`,
    CI_ENV,
  ),
]
