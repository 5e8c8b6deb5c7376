import { gzipSync } from 'node:zlib'

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
]
