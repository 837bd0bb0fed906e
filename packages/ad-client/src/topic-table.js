// @ts-check
/**
 * The table that maps what a project's manifests name to the service's published topic
 * vocabulary (`GET /serve/v1/topics`). Data only: adding a mapping is a line here, and every
 * topic a rule emits must be in the vocabulary (a test checks it against the service's list).
 *
 * A rule emits its topic when any of its matchers hits. Matchers are per source:
 * - `files`: a manifest present at the top of the working directory (`*.tf`: any file ending in `.tf`);
 * - `npm`: a package.json `dependencies`/`devDependencies` name;
 * - `pypi`: a pyproject.toml / requirements.txt requirement (normalised: lower case, `_` and `.` as `-`);
 * - `go`: a go.mod module path; `cargo`: a Cargo.toml dependency; `gem`: a Gemfile gem;
 * - `maven`: a pom.xml / build.gradle group id or artifact id (or a Gradle plugin id);
 * - `image`: a Dockerfile `FROM` image's last path segment, without tag or digest;
 * - `chart`: a Chart.yaml dependency name; `tf`: a Terraform provider name.
 * A name ending in `*` matches by prefix; any other name matches exactly.
 *
 * Order matters: the client sends at most five topics, taken in the order of the first rule
 * that emitted each, so the most specific come first: application frameworks, data stores and
 * messaging, clouds, AI/ML, infrastructure, testing, build tools and linters, then runtimes
 * and languages. One exception: when the five would hold no language (LANGUAGE_TOPICS), the
 * fifth place goes to the first language found, so broad campaigns ("Python developers") still
 * reach projects with many specific topics.
 */

/**
 * @typedef {{
 *   topic: string,
 *   files?: string[], npm?: string[], pypi?: string[], go?: string[], cargo?: string[], gem?: string[],
 *   maven?: string[], image?: string[], chart?: string[], tf?: string[]
 * }} TopicRule
 */

/** At most this many topics go with a decision request (the service's bound). */
export const MAX_TOPICS = 5

/** @type {readonly TopicRule[]} */
export const TOPIC_RULES = [
  // Application frameworks: meta-frameworks before the UI libraries they build on.
  { topic: 'nextjs', npm: ['next'] },
  { topic: 'nuxt', npm: ['nuxt', 'nuxt3'] },
  { topic: 'remix', npm: ['@remix-run/*'] },
  { topic: 'gatsby', npm: ['gatsby'] },
  { topic: 'astro', npm: ['astro'] },
  { topic: 'sveltekit', npm: ['@sveltejs/kit'] },
  { topic: 'react-native', npm: ['react-native'] },
  { topic: 'expo', npm: ['expo'] },
  { topic: 'ionic', npm: ['@ionic/*'] },
  { topic: 'electron', npm: ['electron'] },
  { topic: 'tauri', npm: ['@tauri-apps/*'], cargo: ['tauri'] },
  { topic: 'react', npm: ['react', 'react-dom'] },
  { topic: 'preact', npm: ['preact'] },
  { topic: 'vue', npm: ['vue'] },
  { topic: 'angular', npm: ['@angular/core'] },
  { topic: 'svelte', npm: ['svelte'] },
  { topic: 'solid', npm: ['solid-js'] },
  { topic: 'htmx', npm: ['htmx.org'] },
  { topic: 'threejs', npm: ['three'] },
  { topic: 'd3', npm: ['d3', 'd3-*'] },
  { topic: 'redux', npm: ['redux', '@reduxjs/toolkit'] },
  { topic: 'tailwindcss', npm: ['tailwindcss'] },
  { topic: 'bootstrap', npm: ['bootstrap'], gem: ['bootstrap'] },
  { topic: 'jquery', npm: ['jquery'] },
  { topic: 'nestjs', npm: ['@nestjs/core'] },
  { topic: 'hono', npm: ['hono'] },
  { topic: 'trpc', npm: ['@trpc/*'] },
  { topic: 'express', npm: ['express'] },
  { topic: 'fastify', npm: ['fastify'] },
  { topic: 'apollo', npm: ['@apollo/*', 'apollo-server'] },
  { topic: 'graphql', npm: ['graphql'], pypi: ['graphene', 'strawberry-graphql', 'ariadne'], go: ['github.com/99designs/gqlgen', 'github.com/graphql-go/graphql'], gem: ['graphql'], maven: ['com.graphql-java', 'graphql-java'], cargo: ['async-graphql', 'juniper'] },
  { topic: 'django', pypi: ['django', 'djangorestframework'] },
  { topic: 'flask', pypi: ['flask'] },
  { topic: 'fastapi', pypi: ['fastapi'] },
  { topic: 'celery', pypi: ['celery'] },
  { topic: 'streamlit', pypi: ['streamlit'] },
  { topic: 'gradio', pypi: ['gradio'] },
  { topic: 'rails', gem: ['rails', 'railties'] },
  { topic: 'spring', maven: ['org.springframework*', 'spring-boot*', 'spring-*'] },
  { topic: 'quarkus', maven: ['io.quarkus*', 'quarkus-*'] },
  { topic: 'ktor', maven: ['io.ktor', 'ktor-*'] },
  { topic: 'android', maven: ['com.android.application', 'com.android.library', 'com.android.tools.build', 'androidx.*'] },
  { topic: 'jetpack-compose', maven: ['androidx.compose*'] },
  { topic: 'gin', go: ['github.com/gin-gonic/gin'] },
  { topic: 'actix', cargo: ['actix-web'] },
  { topic: 'axum', cargo: ['axum'] },
  { topic: 'tokio', cargo: ['tokio'] },
  { topic: 'grpc', npm: ['@grpc/grpc-js'], pypi: ['grpcio'], go: ['google.golang.org/grpc'], cargo: ['tonic'], maven: ['io.grpc'] },
  { topic: 'websockets', npm: ['ws', 'socket.io'], pypi: ['websockets'], go: ['github.com/gorilla/websocket'], cargo: ['tokio-tungstenite'] },
  { topic: 'stripe', npm: ['stripe', '@stripe/*'], pypi: ['stripe'], go: ['github.com/stripe/stripe-go*'], gem: ['stripe'], maven: ['com.stripe'] },
  // Databases, search, messaging and data engineering; ORMs after the stores.
  { topic: 'pgvector', npm: ['pgvector'], pypi: ['pgvector'], image: ['pgvector'] },
  { topic: 'timescaledb', image: ['timescaledb', 'timescaledb-ha'] },
  { topic: 'postgresql', npm: ['pg', 'postgres', '@electric-sql/pglite', '@neondatabase/serverless'], pypi: ['psycopg', 'psycopg2', 'psycopg2-binary', 'asyncpg'], go: ['github.com/lib/pq', 'github.com/jackc/pgx*'], cargo: ['tokio-postgres', 'postgres'], gem: ['pg'], maven: ['org.postgresql', 'postgresql'], image: ['postgres', 'postgresql'], chart: ['postgresql', 'postgresql-ha'] },
  { topic: 'mariadb', npm: ['mariadb'], pypi: ['mariadb'], image: ['mariadb'], chart: ['mariadb'] },
  { topic: 'mysql', npm: ['mysql', 'mysql2'], pypi: ['mysqlclient', 'pymysql', 'mysql-connector-python'], go: ['github.com/go-sql-driver/mysql'], gem: ['mysql2'], maven: ['com.mysql', 'mysql-connector-java', 'mysql-connector-j'], image: ['mysql'], chart: ['mysql'] },
  { topic: 'sqlite', npm: ['sqlite3', 'better-sqlite3'], gem: ['sqlite3'], cargo: ['rusqlite'], go: ['github.com/mattn/go-sqlite3', 'modernc.org/sqlite'] },
  { topic: 'sql-server', npm: ['mssql', 'tedious'], pypi: ['pyodbc', 'pymssql'], go: ['github.com/microsoft/go-mssqldb', 'github.com/denisenkom/go-mssqldb'], maven: ['com.microsoft.sqlserver'] },
  { topic: 'cockroachdb', image: ['cockroach'], go: ['github.com/cockroachdb/cockroach-go*'] },
  { topic: 'duckdb', npm: ['duckdb', '@duckdb/*'], pypi: ['duckdb'], go: ['github.com/marcboeker/go-duckdb'] },
  { topic: 'clickhouse', npm: ['@clickhouse/client'], pypi: ['clickhouse-connect', 'clickhouse-driver'], go: ['github.com/clickhouse/clickhouse-go*'], image: ['clickhouse-server'], chart: ['clickhouse'] },
  { topic: 'mongodb', npm: ['mongodb', 'mongoose'], pypi: ['pymongo', 'motor'], go: ['go.mongodb.org/mongo-driver*'], gem: ['mongoid', 'mongo'], cargo: ['mongodb'], maven: ['org.mongodb'], image: ['mongo'], chart: ['mongodb'] },
  { topic: 'cassandra', npm: ['cassandra-driver'], pypi: ['cassandra-driver'], go: ['github.com/gocql/gocql'], maven: ['com.datastax.oss'], image: ['cassandra'], chart: ['cassandra'] },
  { topic: 'dynamodb', npm: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'], go: ['github.com/aws/aws-sdk-go-v2/service/dynamodb'], image: ['dynamodb-local'] },
  { topic: 'neo4j', npm: ['neo4j-driver'], pypi: ['neo4j'], go: ['github.com/neo4j/neo4j-go-driver*'], maven: ['org.neo4j*'], image: ['neo4j'], chart: ['neo4j'] },
  { topic: 'influxdb', npm: ['@influxdata/*'], pypi: ['influxdb-client', 'influxdb'], go: ['github.com/influxdata/influxdb-client-go*'], image: ['influxdb'], chart: ['influxdb', 'influxdb2'] },
  { topic: 'redis', npm: ['redis', 'ioredis'], pypi: ['redis'], go: ['github.com/redis/go-redis*', 'github.com/go-redis/redis*'], gem: ['redis'], cargo: ['redis'], maven: ['redis.clients', 'jedis', 'io.lettuce'], image: ['redis', 'valkey'], chart: ['redis', 'redis-cluster', 'valkey'] },
  { topic: 'memcached', npm: ['memjs', 'memcached'], pypi: ['pymemcache', 'python-memcached'], go: ['github.com/bradfitz/gomemcache'], gem: ['dalli'], image: ['memcached'], chart: ['memcached'] },
  { topic: 'opensearch', npm: ['@opensearch-project/opensearch'], pypi: ['opensearch-py'], image: ['opensearch'], chart: ['opensearch'] },
  { topic: 'elasticsearch', npm: ['@elastic/elasticsearch'], pypi: ['elasticsearch'], go: ['github.com/elastic/go-elasticsearch*'], gem: ['elasticsearch'], maven: ['co.elastic.clients'], image: ['elasticsearch'], chart: ['elasticsearch'] },
  { topic: 'pinecone', npm: ['@pinecone-database/pinecone'], pypi: ['pinecone', 'pinecone-client'] },
  { topic: 'qdrant', npm: ['@qdrant/*'], pypi: ['qdrant-client'], cargo: ['qdrant-client'], image: ['qdrant'], chart: ['qdrant'] },
  { topic: 'weaviate', npm: ['weaviate-client', 'weaviate-ts-client'], pypi: ['weaviate-client'], image: ['weaviate'], chart: ['weaviate'] },
  { topic: 'chroma', npm: ['chromadb'], pypi: ['chromadb'], image: ['chroma'] },
  { topic: 'snowflake', npm: ['snowflake-sdk'], pypi: ['snowflake-connector-python', 'snowflake-snowpark-python'], go: ['github.com/snowflakedb/gosnowflake'] },
  { topic: 'bigquery', npm: ['@google-cloud/bigquery'], pypi: ['google-cloud-bigquery'], go: ['cloud.google.com/go/bigquery'] },
  { topic: 'kafka', npm: ['kafkajs'], pypi: ['kafka-python', 'confluent-kafka', 'aiokafka'], go: ['github.com/segmentio/kafka-go', 'github.com/ibm/sarama', 'github.com/shopify/sarama', 'github.com/confluentinc/confluent-kafka-go*'], cargo: ['rdkafka'], maven: ['org.apache.kafka'], image: ['kafka', 'cp-kafka'], chart: ['kafka'] },
  { topic: 'rabbitmq', npm: ['amqplib'], pypi: ['pika', 'aio-pika'], go: ['github.com/rabbitmq/amqp091-go'], gem: ['bunny'], maven: ['com.rabbitmq'], image: ['rabbitmq'], chart: ['rabbitmq'] },
  { topic: 'nats', npm: ['nats'], pypi: ['nats-py'], go: ['github.com/nats-io/nats.go'], cargo: ['async-nats'], image: ['nats'], chart: ['nats'] },
  { topic: 'pulsar', npm: ['pulsar-client'], pypi: ['pulsar-client'], go: ['github.com/apache/pulsar-client-go'], maven: ['org.apache.pulsar'], image: ['pulsar'] },
  { topic: 'spark', pypi: ['pyspark'], maven: ['org.apache.spark', 'spark-core*', 'spark-sql*'], image: ['spark'], chart: ['spark'] },
  { topic: 'flink', pypi: ['apache-flink'], maven: ['org.apache.flink'], image: ['flink'] },
  { topic: 'airflow', pypi: ['apache-airflow', 'apache-airflow-*'], image: ['airflow'], chart: ['airflow'] },
  { topic: 'dagster', pypi: ['dagster', 'dagster-*'] },
  { topic: 'dbt', pypi: ['dbt-core', 'dbt-*'] },
  { topic: 'kinesis', npm: ['@aws-sdk/client-kinesis'], pypi: ['amazon-kinesis-client'] },
  { topic: 'sqs', npm: ['@aws-sdk/client-sqs', 'sqs-consumer'] },
  { topic: 'prisma', npm: ['prisma', '@prisma/client'] },
  { topic: 'drizzle', npm: ['drizzle-orm', 'drizzle-kit'] },
  { topic: 'typeorm', npm: ['typeorm'] },
  { topic: 'sqlalchemy', pypi: ['sqlalchemy', 'sqlmodel'] },
  { topic: 'hibernate', maven: ['org.hibernate*', 'hibernate-core'] },
  // Clouds and hosted platforms.
  { topic: 'aws-cdk', npm: ['aws-cdk-lib', 'aws-cdk'], pypi: ['aws-cdk-lib'] },
  { topic: 'lambda', npm: ['@types/aws-lambda', '@aws-sdk/client-lambda'], pypi: ['aws-lambda-powertools'], go: ['github.com/aws/aws-lambda-go'], cargo: ['lambda_runtime', 'lambda-runtime'] },
  { topic: 'serverless', npm: ['serverless'] },
  { topic: 'aws', npm: ['@aws-sdk/*', 'aws-sdk'], pypi: ['boto3', 'botocore'], go: ['github.com/aws/aws-sdk-go*'], cargo: ['aws-sdk-*', 'aws-config'], gem: ['aws-sdk*'], maven: ['software.amazon.awssdk', 'com.amazonaws'], tf: ['aws'] },
  { topic: 'gcp', npm: ['@google-cloud/*'], pypi: ['google-cloud-*'], go: ['cloud.google.com/go*'], maven: ['com.google.cloud'], tf: ['google', 'google-beta'] },
  { topic: 'azure', npm: ['@azure/*'], pypi: ['azure-*'], go: ['github.com/azure/azure-sdk-for-go*'], maven: ['com.azure', 'com.microsoft.azure'], tf: ['azurerm', 'azuread'] },
  { topic: 'cloudflare', npm: ['wrangler', '@cloudflare/*'], tf: ['cloudflare'] },
  { topic: 'vercel', npm: ['vercel', '@vercel/*'], tf: ['vercel'] },
  { topic: 'netlify', npm: ['netlify-cli', '@netlify/*'], tf: ['netlify'] },
  { topic: 'heroku', tf: ['heroku'] },
  { topic: 'digitalocean', tf: ['digitalocean'] },
  { topic: 'hetzner', tf: ['hcloud'] },
  { topic: 'firebase', npm: ['firebase', 'firebase-admin', 'firebase-functions'], pypi: ['firebase-admin'] },
  { topic: 'supabase', npm: ['@supabase/*'], pypi: ['supabase'] },
  // AI and machine learning.
  { topic: 'openai', npm: ['openai', '@ai-sdk/openai'], pypi: ['openai'], go: ['github.com/sashabaranov/go-openai', 'github.com/openai/openai-go'] },
  { topic: 'anthropic', npm: ['@anthropic-ai/*', '@ai-sdk/anthropic'], pypi: ['anthropic'], go: ['github.com/anthropics/anthropic-sdk-go'] },
  { topic: 'langchain', npm: ['langchain', '@langchain/*'], pypi: ['langchain', 'langchain-*', 'langgraph'] },
  { topic: 'llamaindex', npm: ['llamaindex'], pypi: ['llama-index', 'llama-index-*'] },
  { topic: 'dspy', pypi: ['dspy', 'dspy-ai'] },
  { topic: 'ollama', npm: ['ollama'], pypi: ['ollama'], image: ['ollama'] },
  { topic: 'vllm', pypi: ['vllm'] },
  { topic: 'transformers', pypi: ['transformers', 'sentence-transformers'], npm: ['@huggingface/transformers', '@xenova/transformers'] },
  { topic: 'huggingface', pypi: ['huggingface-hub', 'datasets', 'diffusers', 'accelerate'], npm: ['@huggingface/*'] },
  { topic: 'pytorch', pypi: ['torch', 'torchvision', 'lightning', 'pytorch-lightning'] },
  { topic: 'jax', pypi: ['jax', 'flax'] },
  { topic: 'keras', pypi: ['keras'] },
  { topic: 'tensorflow', npm: ['@tensorflow/*'], pypi: ['tensorflow', 'tensorflow-*'] },
  { topic: 'xgboost', pypi: ['xgboost'] },
  { topic: 'lightgbm', pypi: ['lightgbm'] },
  { topic: 'scikit-learn', pypi: ['scikit-learn', 'sklearn'] },
  { topic: 'spacy', pypi: ['spacy'] },
  { topic: 'opencv', pypi: ['opencv-python', 'opencv-python-headless', 'opencv-contrib-python'] },
  { topic: 'onnx', pypi: ['onnx', 'onnxruntime', 'onnxruntime-*'], npm: ['onnxruntime-node', 'onnxruntime-web'] },
  { topic: 'mlflow', pypi: ['mlflow', 'mlflow-skinny'] },
  { topic: 'wandb', pypi: ['wandb'] },
  { topic: 'ray', pypi: ['ray'] },
  { topic: 'polars', pypi: ['polars'], npm: ['nodejs-polars'], cargo: ['polars'] },
  { topic: 'pandas', pypi: ['pandas'] },
  { topic: 'numpy', pypi: ['numpy', 'scipy'] },
  { topic: 'jupyter', pypi: ['jupyter', 'jupyterlab', 'notebook', 'ipykernel'] },
  // Infrastructure, observability and deployment.
  { topic: 'helm', files: ['Chart.yaml'], tf: ['helm'] },
  { topic: 'kubernetes', files: ['Chart.yaml'], npm: ['@kubernetes/client-node'], pypi: ['kubernetes'], go: ['k8s.io/client-go', 'k8s.io/api', 'sigs.k8s.io/controller-runtime'], cargo: ['kube'], maven: ['io.fabric8', 'io.kubernetes'], tf: ['kubernetes'] },
  { topic: 'argocd', tf: ['argocd'] },
  { topic: 'istio', chart: ['istiod'], go: ['istio.io/client-go', 'istio.io/api'] },
  { topic: 'pulumi', npm: ['@pulumi/*'], pypi: ['pulumi', 'pulumi-*'], go: ['github.com/pulumi/pulumi*'] },
  { topic: 'terraform', files: ['*.tf'], npm: ['cdktf'], pypi: ['cdktf'] },
  { topic: 'ansible', pypi: ['ansible', 'ansible-core'] },
  { topic: 'vault', go: ['github.com/hashicorp/vault/api'], pypi: ['hvac'], image: ['vault'], chart: ['vault'], tf: ['vault'] },
  { topic: 'consul', go: ['github.com/hashicorp/consul/api'], image: ['consul'], chart: ['consul'], tf: ['consul'] },
  { topic: 'nomad', go: ['github.com/hashicorp/nomad/api'], tf: ['nomad'] },
  { topic: 'prometheus', npm: ['prom-client'], pypi: ['prometheus-client'], go: ['github.com/prometheus/client_golang'], cargo: ['prometheus'], maven: ['io.prometheus', 'io.micrometer'], image: ['prometheus'], chart: ['prometheus', 'kube-prometheus-stack'] },
  { topic: 'grafana', image: ['grafana'], chart: ['grafana'], tf: ['grafana'] },
  { topic: 'opentelemetry', npm: ['@opentelemetry/*'], pypi: ['opentelemetry-*'], go: ['go.opentelemetry.io/*'], cargo: ['opentelemetry*'], maven: ['io.opentelemetry*'], gem: ['opentelemetry-*'] },
  { topic: 'datadog', npm: ['dd-trace', '@datadog/*'], pypi: ['ddtrace', 'datadog'], go: ['gopkg.in/datadog/dd-trace-go.v1', 'github.com/datadog/dd-trace-go*'], gem: ['ddtrace', 'datadog'], tf: ['datadog'] },
  { topic: 'sentry', npm: ['@sentry/*'], pypi: ['sentry-sdk'], go: ['github.com/getsentry/sentry-go'], gem: ['sentry-ruby', 'sentry-rails'], cargo: ['sentry'], maven: ['io.sentry'] },
  { topic: 'nginx', image: ['nginx'], chart: ['nginx', 'ingress-nginx'] },
  { topic: 'caddy', image: ['caddy'] },
  { topic: 'traefik', image: ['traefik'], chart: ['traefik'] },
  { topic: 'docker', files: ['Dockerfile'], pypi: ['docker'], npm: ['dockerode'], go: ['github.com/docker/docker'] },
  // Testing.
  { topic: 'testcontainers', npm: ['testcontainers', '@testcontainers/*'], pypi: ['testcontainers'], go: ['github.com/testcontainers/testcontainers-go*'], maven: ['org.testcontainers'] },
  { topic: 'playwright', npm: ['playwright', '@playwright/test', 'playwright-core'], pypi: ['playwright', 'pytest-playwright'], maven: ['com.microsoft.playwright'] },
  { topic: 'cypress', npm: ['cypress'] },
  { topic: 'puppeteer', npm: ['puppeteer', 'puppeteer-core'] },
  { topic: 'selenium', npm: ['selenium-webdriver'], pypi: ['selenium'], gem: ['selenium-webdriver'], maven: ['org.seleniumhq.selenium'] },
  { topic: 'appium', npm: ['appium', 'webdriverio'], pypi: ['appium-python-client'] },
  { topic: 'cucumber', npm: ['@cucumber/cucumber'], gem: ['cucumber'], maven: ['io.cucumber'], pypi: ['behave'] },
  { topic: 'pact', npm: ['@pact-foundation/pact'], pypi: ['pact-python'], maven: ['au.com.dius.pact*'] },
  { topic: 'k6', npm: ['k6', '@types/k6'] },
  { topic: 'locust', pypi: ['locust'] },
  { topic: 'hypothesis', pypi: ['hypothesis'] },
  { topic: 'testing-library', npm: ['@testing-library/*'] },
  { topic: 'pytest', pypi: ['pytest', 'pytest-*'] },
  { topic: 'jest', npm: ['jest', 'ts-jest', '@jest/*'] },
  { topic: 'vitest', npm: ['vitest'] },
  { topic: 'mocha', npm: ['mocha'] },
  { topic: 'rspec', gem: ['rspec', 'rspec-*'] },
  { topic: 'testify', go: ['github.com/stretchr/testify'] },
  { topic: 'mockito', maven: ['org.mockito', 'mockito-*'] },
  { topic: 'junit', maven: ['junit', 'org.junit*', 'junit-jupiter*'] },
  // Build tools, linters and package managers named by a manifest.
  { topic: 'storybook', npm: ['storybook', '@storybook/*'] },
  { topic: 'vite', npm: ['vite'] },
  { topic: 'webpack', npm: ['webpack'] },
  { topic: 'esbuild', npm: ['esbuild'] },
  { topic: 'sass', npm: ['sass', 'node-sass'] },
  { topic: 'eslint', npm: ['eslint'] },
  { topic: 'prettier', npm: ['prettier'] },
  { topic: 'ruff', pypi: ['ruff'] },
  { topic: 'mypy', pypi: ['mypy'] },
  { topic: 'gradle', files: ['build.gradle', 'build.gradle.kts'] },
  { topic: 'maven', files: ['pom.xml'] },
  { topic: 'cargo', files: ['Cargo.toml'] },
  // Runtimes and languages, last: the least specific.
  { topic: 'typescript', npm: ['typescript', 'tsx', 'ts-node'] },
  { topic: 'bun', npm: ['bun-types', '@types/bun'], image: ['bun'] },
  { topic: 'deno', image: ['deno'] },
  { topic: 'nodejs', npm: ['@types/node'], image: ['node'] },
  { topic: 'rust', files: ['Cargo.toml'], image: ['rust'] },
  { topic: 'go', files: ['go.mod'], image: ['golang'] },
  { topic: 'kotlin', files: ['build.gradle.kts'], maven: ['org.jetbrains.kotlin*', 'kotlin-stdlib*'] },
  { topic: 'java', files: ['pom.xml', 'build.gradle'], image: ['openjdk', 'eclipse-temurin', 'amazoncorretto'] },
  { topic: 'ruby', files: ['Gemfile'], image: ['ruby'] },
  { topic: 'python', files: ['pyproject.toml', 'requirements.txt'], image: ['python'] },
  { topic: 'javascript', files: ['package.json'] },
]

/** The language topics, one of which always has a place among the five when the project has one. */
export const LANGUAGE_TOPICS = new Set(['typescript', 'javascript', 'python', 'go', 'rust', 'java', 'kotlin', 'ruby'])

/** Every topic the table can emit. */
export const TABLE_TOPICS = new Set(TOPIC_RULES.map((r) => r.topic))
