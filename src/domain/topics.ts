/**
 * The published topic vocabulary (operations.md section 2, "Topics"; issue 40).
 *
 * A client derives a few coarse topics locally, from the manifest files of the project open in the
 * tool, and sends only names from this list; a campaign may target up to 10 of them. The list is
 * data: adding a topic is a one-line change here. Removing one never breaks a campaign that
 * targets it: the stored name stays on the campaign and simply stops matching (no decision can
 * carry it, since unknown names are dropped), and the portal says so.
 *
 * Names are lower-case `[a-z0-9-]`, unique, 150-300 in all (test/unit/topics.test.ts holds the
 * contract). Groups, in the order the portal shows them: see `TOPIC_GROUPS`.
 */

export const TOPIC_GROUPS = [
  { group: 'languages', label: 'Languages' },
  { group: 'frontend', label: 'Front-end frameworks and tools' },
  { group: 'backend', label: 'Back-end frameworks and runtimes' },
  { group: 'mobile', label: 'Mobile and desktop' },
  { group: 'databases', label: 'Databases and search' },
  { group: 'data', label: 'Data engineering and messaging' },
  { group: 'clouds', label: 'Clouds and hosting' },
  { group: 'infrastructure', label: 'Infrastructure, CI and observability' },
  { group: 'testing', label: 'Testing' },
  { group: 'ai-ml', label: 'AI and machine learning' },
  { group: 'tooling', label: 'Package managers, linters and other tooling' },
] as const

export type TopicGroup = (typeof TOPIC_GROUPS)[number]['group']

export interface Topic {
  readonly topic: string
  readonly label: string
  readonly group: TopicGroup
}

/** At most this many topics on a campaign (`target_topics`). */
export const MAX_TARGET_TOPICS = 10
/** At most this many topics count on one decision (the first known ones, in the order sent). */
export const MAX_DECISION_TOPICS = 5
/** A topic name: lower-case letters, digits and hyphens. */
export const TOPIC_NAME_PATTERN = '^[a-z0-9-]+$'
/** Longest topic name accepted in a request (a schema bound; the vocabulary's names are far shorter). */
export const MAX_TOPIC_NAME_LENGTH = 40

const LIST: ReadonlyArray<readonly [string, string, TopicGroup]> = [
  // languages
  ['python', 'Python', 'languages'],
  ['javascript', 'JavaScript', 'languages'],
  ['typescript', 'TypeScript', 'languages'],
  ['go', 'Go', 'languages'],
  ['rust', 'Rust', 'languages'],
  ['java', 'Java', 'languages'],
  ['kotlin', 'Kotlin', 'languages'],
  ['scala', 'Scala', 'languages'],
  ['ruby', 'Ruby', 'languages'],
  ['php', 'PHP', 'languages'],
  ['csharp', 'C#', 'languages'],
  ['fsharp', 'F#', 'languages'],
  ['cpp', 'C++', 'languages'],
  ['c', 'C', 'languages'],
  ['swift', 'Swift', 'languages'],
  ['objective-c', 'Objective-C', 'languages'],
  ['dart', 'Dart', 'languages'],
  ['elixir', 'Elixir', 'languages'],
  ['erlang', 'Erlang', 'languages'],
  ['haskell', 'Haskell', 'languages'],
  ['ocaml', 'OCaml', 'languages'],
  ['clojure', 'Clojure', 'languages'],
  ['lua', 'Lua', 'languages'],
  ['perl', 'Perl', 'languages'],
  ['r', 'R', 'languages'],
  ['julia', 'Julia', 'languages'],
  ['zig', 'Zig', 'languages'],
  ['groovy', 'Groovy', 'languages'],
  ['shell', 'Shell', 'languages'],
  ['powershell', 'PowerShell', 'languages'],
  ['solidity', 'Solidity', 'languages'],
  ['webassembly', 'WebAssembly', 'languages'],
  ['sql', 'SQL', 'languages'],
  // frontend
  ['react', 'React', 'frontend'],
  ['vue', 'Vue', 'frontend'],
  ['angular', 'Angular', 'frontend'],
  ['svelte', 'Svelte', 'frontend'],
  ['solid', 'SolidJS', 'frontend'],
  ['preact', 'Preact', 'frontend'],
  ['nextjs', 'Next.js', 'frontend'],
  ['nuxt', 'Nuxt', 'frontend'],
  ['sveltekit', 'SvelteKit', 'frontend'],
  ['remix', 'Remix', 'frontend'],
  ['astro', 'Astro', 'frontend'],
  ['gatsby', 'Gatsby', 'frontend'],
  ['htmx', 'htmx', 'frontend'],
  ['jquery', 'jQuery', 'frontend'],
  ['tailwindcss', 'Tailwind CSS', 'frontend'],
  ['bootstrap', 'Bootstrap', 'frontend'],
  ['sass', 'Sass', 'frontend'],
  ['redux', 'Redux', 'frontend'],
  ['graphql', 'GraphQL', 'frontend'],
  ['apollo', 'Apollo', 'frontend'],
  ['vite', 'Vite', 'frontend'],
  ['webpack', 'webpack', 'frontend'],
  ['esbuild', 'esbuild', 'frontend'],
  ['storybook', 'Storybook', 'frontend'],
  ['threejs', 'three.js', 'frontend'],
  ['d3', 'D3', 'frontend'],
  // backend
  ['django', 'Django', 'backend'],
  ['flask', 'Flask', 'backend'],
  ['fastapi', 'FastAPI', 'backend'],
  ['rails', 'Ruby on Rails', 'backend'],
  ['spring', 'Spring', 'backend'],
  ['quarkus', 'Quarkus', 'backend'],
  ['express', 'Express', 'backend'],
  ['nestjs', 'NestJS', 'backend'],
  ['fastify', 'Fastify', 'backend'],
  ['hono', 'Hono', 'backend'],
  ['laravel', 'Laravel', 'backend'],
  ['symfony', 'Symfony', 'backend'],
  ['aspnet', 'ASP.NET', 'backend'],
  ['phoenix', 'Phoenix', 'backend'],
  ['gin', 'Gin', 'backend'],
  ['actix', 'Actix Web', 'backend'],
  ['axum', 'Axum', 'backend'],
  ['tokio', 'Tokio', 'backend'],
  ['ktor', 'Ktor', 'backend'],
  ['grpc', 'gRPC', 'backend'],
  ['trpc', 'tRPC', 'backend'],
  ['celery', 'Celery', 'backend'],
  ['sqlalchemy', 'SQLAlchemy', 'backend'],
  ['prisma', 'Prisma', 'backend'],
  ['drizzle', 'Drizzle', 'backend'],
  ['typeorm', 'TypeORM', 'backend'],
  ['hibernate', 'Hibernate', 'backend'],
  ['nodejs', 'Node.js', 'backend'],
  ['deno', 'Deno', 'backend'],
  ['bun', 'Bun', 'backend'],
  ['dotnet', '.NET', 'backend'],
  // mobile
  ['android', 'Android', 'mobile'],
  ['ios', 'iOS', 'mobile'],
  ['react-native', 'React Native', 'mobile'],
  ['flutter', 'Flutter', 'mobile'],
  ['expo', 'Expo', 'mobile'],
  ['swiftui', 'SwiftUI', 'mobile'],
  ['jetpack-compose', 'Jetpack Compose', 'mobile'],
  ['ionic', 'Ionic', 'mobile'],
  ['electron', 'Electron', 'mobile'],
  ['tauri', 'Tauri', 'mobile'],
  // databases
  ['postgresql', 'PostgreSQL', 'databases'],
  ['mysql', 'MySQL', 'databases'],
  ['mariadb', 'MariaDB', 'databases'],
  ['sqlite', 'SQLite', 'databases'],
  ['mongodb', 'MongoDB', 'databases'],
  ['redis', 'Redis', 'databases'],
  ['elasticsearch', 'Elasticsearch', 'databases'],
  ['opensearch', 'OpenSearch', 'databases'],
  ['cassandra', 'Cassandra', 'databases'],
  ['dynamodb', 'DynamoDB', 'databases'],
  ['cockroachdb', 'CockroachDB', 'databases'],
  ['clickhouse', 'ClickHouse', 'databases'],
  ['duckdb', 'DuckDB', 'databases'],
  ['neo4j', 'Neo4j', 'databases'],
  ['influxdb', 'InfluxDB', 'databases'],
  ['timescaledb', 'TimescaleDB', 'databases'],
  ['memcached', 'Memcached', 'databases'],
  ['sql-server', 'SQL Server', 'databases'],
  ['supabase', 'Supabase', 'databases'],
  ['firebase', 'Firebase', 'databases'],
  ['snowflake', 'Snowflake', 'databases'],
  ['bigquery', 'BigQuery', 'databases'],
  ['pinecone', 'Pinecone', 'databases'],
  ['qdrant', 'Qdrant', 'databases'],
  ['weaviate', 'Weaviate', 'databases'],
  ['chroma', 'Chroma', 'databases'],
  ['pgvector', 'pgvector', 'databases'],
  // data
  ['kafka', 'Kafka', 'data'],
  ['rabbitmq', 'RabbitMQ', 'data'],
  ['nats', 'NATS', 'data'],
  ['pulsar', 'Pulsar', 'data'],
  ['spark', 'Spark', 'data'],
  ['flink', 'Flink', 'data'],
  ['airflow', 'Airflow', 'data'],
  ['dagster', 'Dagster', 'data'],
  ['dbt', 'dbt', 'data'],
  ['pandas', 'pandas', 'data'],
  ['polars', 'Polars', 'data'],
  ['numpy', 'NumPy', 'data'],
  ['jupyter', 'Jupyter', 'data'],
  ['kinesis', 'Kinesis', 'data'],
  ['sqs', 'SQS', 'data'],
  // clouds
  ['aws', 'AWS', 'clouds'],
  ['gcp', 'Google Cloud', 'clouds'],
  ['azure', 'Azure', 'clouds'],
  ['cloudflare', 'Cloudflare', 'clouds'],
  ['vercel', 'Vercel', 'clouds'],
  ['netlify', 'Netlify', 'clouds'],
  ['heroku', 'Heroku', 'clouds'],
  ['fly-io', 'Fly.io', 'clouds'],
  ['digitalocean', 'DigitalOcean', 'clouds'],
  ['render', 'Render', 'clouds'],
  ['railway', 'Railway', 'clouds'],
  ['lambda', 'AWS Lambda', 'clouds'],
  ['cloud-run', 'Cloud Run', 'clouds'],
  ['hetzner', 'Hetzner', 'clouds'],
  // infrastructure
  ['docker', 'Docker', 'infrastructure'],
  ['kubernetes', 'Kubernetes', 'infrastructure'],
  ['helm', 'Helm', 'infrastructure'],
  ['terraform', 'Terraform', 'infrastructure'],
  ['opentofu', 'OpenTofu', 'infrastructure'],
  ['pulumi', 'Pulumi', 'infrastructure'],
  ['ansible', 'Ansible', 'infrastructure'],
  ['nomad', 'Nomad', 'infrastructure'],
  ['consul', 'Consul', 'infrastructure'],
  ['vault', 'Vault', 'infrastructure'],
  ['istio', 'Istio', 'infrastructure'],
  ['envoy', 'Envoy', 'infrastructure'],
  ['nginx', 'nginx', 'infrastructure'],
  ['caddy', 'Caddy', 'infrastructure'],
  ['traefik', 'Traefik', 'infrastructure'],
  ['argocd', 'Argo CD', 'infrastructure'],
  ['github-actions', 'GitHub Actions', 'infrastructure'],
  ['gitlab-ci', 'GitLab CI', 'infrastructure'],
  ['jenkins', 'Jenkins', 'infrastructure'],
  ['circleci', 'CircleCI', 'infrastructure'],
  ['prometheus', 'Prometheus', 'infrastructure'],
  ['grafana', 'Grafana', 'infrastructure'],
  ['opentelemetry', 'OpenTelemetry', 'infrastructure'],
  ['datadog', 'Datadog', 'infrastructure'],
  ['sentry', 'Sentry', 'infrastructure'],
  ['elastic-stack', 'Elastic Stack', 'infrastructure'],
  ['serverless', 'Serverless', 'infrastructure'],
  ['cloudformation', 'CloudFormation', 'infrastructure'],
  ['aws-cdk', 'AWS CDK', 'infrastructure'],
  ['bazel', 'Bazel', 'infrastructure'],
  ['nix', 'Nix', 'infrastructure'],
  ['linux', 'Linux', 'infrastructure'],
  // testing
  ['pytest', 'pytest', 'testing'],
  ['unittest', 'unittest', 'testing'],
  ['jest', 'Jest', 'testing'],
  ['vitest', 'Vitest', 'testing'],
  ['mocha', 'Mocha', 'testing'],
  ['playwright', 'Playwright', 'testing'],
  ['cypress', 'Cypress', 'testing'],
  ['selenium', 'Selenium', 'testing'],
  ['puppeteer', 'Puppeteer', 'testing'],
  ['testing-library', 'Testing Library', 'testing'],
  ['junit', 'JUnit', 'testing'],
  ['mockito', 'Mockito', 'testing'],
  ['rspec', 'RSpec', 'testing'],
  ['phpunit', 'PHPUnit', 'testing'],
  ['xunit', 'xUnit', 'testing'],
  ['go-test', 'Go testing', 'testing'],
  ['testify', 'Testify', 'testing'],
  ['k6', 'k6', 'testing'],
  ['locust', 'Locust', 'testing'],
  ['jmeter', 'JMeter', 'testing'],
  ['hypothesis', 'Hypothesis', 'testing'],
  ['testcontainers', 'Testcontainers', 'testing'],
  ['appium', 'Appium', 'testing'],
  ['cucumber', 'Cucumber', 'testing'],
  ['pact', 'Pact', 'testing'],
  // ai-ml
  ['pytorch', 'PyTorch', 'ai-ml'],
  ['tensorflow', 'TensorFlow', 'ai-ml'],
  ['keras', 'Keras', 'ai-ml'],
  ['jax', 'JAX', 'ai-ml'],
  ['scikit-learn', 'scikit-learn', 'ai-ml'],
  ['xgboost', 'XGBoost', 'ai-ml'],
  ['lightgbm', 'LightGBM', 'ai-ml'],
  ['huggingface', 'Hugging Face', 'ai-ml'],
  ['transformers', 'Transformers', 'ai-ml'],
  ['langchain', 'LangChain', 'ai-ml'],
  ['llamaindex', 'LlamaIndex', 'ai-ml'],
  ['openai', 'OpenAI', 'ai-ml'],
  ['anthropic', 'Anthropic', 'ai-ml'],
  ['ollama', 'Ollama', 'ai-ml'],
  ['vllm', 'vLLM', 'ai-ml'],
  ['mlflow', 'MLflow', 'ai-ml'],
  ['onnx', 'ONNX', 'ai-ml'],
  ['opencv', 'OpenCV', 'ai-ml'],
  ['spacy', 'spaCy', 'ai-ml'],
  ['ray', 'Ray', 'ai-ml'],
  ['wandb', 'Weights & Biases', 'ai-ml'],
  ['gradio', 'Gradio', 'ai-ml'],
  ['streamlit', 'Streamlit', 'ai-ml'],
  ['dspy', 'DSPy', 'ai-ml'],
  // tooling
  ['git', 'Git', 'tooling'],
  ['npm', 'npm', 'tooling'],
  ['pnpm', 'pnpm', 'tooling'],
  ['yarn', 'Yarn', 'tooling'],
  ['poetry', 'Poetry', 'tooling'],
  ['uv', 'uv', 'tooling'],
  ['pip', 'pip', 'tooling'],
  ['conda', 'Conda', 'tooling'],
  ['cargo', 'Cargo', 'tooling'],
  ['maven', 'Maven', 'tooling'],
  ['gradle', 'Gradle', 'tooling'],
  ['cmake', 'CMake', 'tooling'],
  ['eslint', 'ESLint', 'tooling'],
  ['prettier', 'Prettier', 'tooling'],
  ['ruff', 'Ruff', 'tooling'],
  ['mypy', 'mypy', 'tooling'],
  ['stripe', 'Stripe', 'tooling'],
  ['oauth', 'OAuth', 'tooling'],
  ['openapi', 'OpenAPI', 'tooling'],
  ['websockets', 'WebSockets', 'tooling'],
]

/** The vocabulary, in group order then as listed (what `GET /serve/v1/topics` answers). */
export const TOPICS: readonly Topic[] = LIST.map(([topic, label, group]) => ({ topic, label, group }))

const BY_NAME: ReadonlyMap<string, Topic> = new Map(TOPICS.map((t) => [t.topic, t]))

/** Whether a name is in the vocabulary now. */
export function isTopic(name: string): boolean {
  return BY_NAME.has(name)
}

/** The vocabulary entry of a name, or undefined for a name not (or no longer) in it. */
export function topicOf(name: string): Topic | undefined {
  return BY_NAME.get(name)
}

/**
 * A decision's topics as the auction reads them: names not in the vocabulary dropped (never an
 * error: old clients and new topics coexist), repeats dropped, then the first
 * `MAX_DECISION_TOPICS` kept in the order sent.
 */
export function normaliseDecisionTopics(names: readonly string[] | undefined): string[] {
  if (names === undefined || names.length === 0) return []
  const kept: string[] = []
  for (const name of names) {
    if (kept.length === MAX_DECISION_TOPICS) break
    if (BY_NAME.has(name) && !kept.includes(name)) kept.push(name)
  }
  return kept
}

export type TargetTopicsCheck =
  | { ok: true; topics: string[] }
  | { ok: false; reason: 'too_many_topics'; max: number }
  | { ok: false; reason: 'unknown_topic'; topic: string }

/**
 * A campaign's `target_topics`: each must be in the vocabulary (the first unknown one is named),
 * at most `MAX_TARGET_TOPICS` distinct names. Repeats collapse; the result is sorted, so the
 * stored set reads the same whatever order the advertiser sent.
 */
export function checkTargetTopics(names: readonly string[]): TargetTopicsCheck {
  for (const name of names) {
    if (!BY_NAME.has(name)) return { ok: false, reason: 'unknown_topic', topic: name }
  }
  const topics = [...new Set(names)].sort()
  if (topics.length > MAX_TARGET_TOPICS) return { ok: false, reason: 'too_many_topics', max: MAX_TARGET_TOPICS }
  return { ok: true, topics }
}

/**
 * Whether a campaign's targeting admits a decision: a campaign without topics (null or empty) is
 * eligible for every decision; one with topics only for a decision that carries at least one of
 * them. A targeted name no longer in the vocabulary never matches (decisions cannot carry it).
 */
export function topicsMatch(targetTopics: ReadonlySet<string> | null, decisionTopics: readonly string[]): boolean {
  if (targetTopics === null || targetTopics.size === 0) return true
  for (const t of decisionTopics) if (targetTopics.has(t)) return true
  return false
}

/**
 * The one topic a billable impression is attributed to in reporting (/v1/stats group_by=topic):
 * for a campaign with topics, the first of the decision's topics (in the order sent) it targets,
 * the reason it matched; for one without, the decision's first topic; null when the decision
 * carried none. One topic per impression keeps the rows of a report summing to its total and
 * keeps one attribute, not a project's whole stack, per ledger row.
 */
export function attributedTopic(targetTopics: ReadonlySet<string> | null | undefined, decisionTopics: readonly string[]): string | null {
  if (decisionTopics.length === 0) return null
  if (targetTopics == null || targetTopics.size === 0) return decisionTopics[0]!
  for (const t of decisionTopics) if (targetTopics.has(t)) return t
  return null
}

/**
 * Decisions counted by topic are kept this long (the auction quote reads the last hour); the
 * ledger-partitions job deletes older minutes daily.
 */
export const TOPIC_COUNTS_KEPT_MS = 7 * 86_400_000

/** A topic is shown in a report only with at least this many billable impressions in the window. */
export const TOPIC_REPORT_MIN_IMPRESSIONS = 10
/** The row summing the topics under the threshold (never a topic name: the vocabulary contract test holds it). */
export const OTHER_TOPICS = 'other'
/** The row of billable impressions whose decision carried no topic. */
export const NO_TOPIC = 'none'

export interface TopicReportRow {
  topic: string
  billable_impressions: number
}

/**
 * A campaign's billable impressions by attributed topic (`attributedTopic`) as a report shows them:
 * each topic with at least TOPIC_REPORT_MIN_IMPRESSIONS, most first (then by name); the topics
 * under it summed as `other`, so no small group is exposed; impressions without a topic as `none`.
 * `other` and `none` appear only when non-zero. The rows sum to the impressions counted.
 */
export function topicReport(counts: ReadonlyArray<{ topic: string | null; billable: number }>): TopicReportRow[] {
  const shown: TopicReportRow[] = []
  let other = 0
  let none = 0
  for (const { topic, billable } of counts) {
    if (billable <= 0) continue
    if (topic === null) none += billable
    else if (billable >= TOPIC_REPORT_MIN_IMPRESSIONS) shown.push({ topic, billable_impressions: billable })
    else other += billable
  }
  shown.sort((a, b) => b.billable_impressions - a.billable_impressions || (a.topic < b.topic ? -1 : 1))
  if (other > 0) shown.push({ topic: OTHER_TOPICS, billable_impressions: other })
  if (none > 0) shown.push({ topic: NO_TOPIC, billable_impressions: none })
  return shown
}
