import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { LANGUAGE_TOPICS, MAX_TOPICS, TOPIC_RULES } from '../src/topic-table.js'
import { CACHE_MAX_ENTRIES, deriveTopics, listManifests, MANIFEST_MAX_BYTES, memoryTopicCache, topicsFor, TOPICS_TTL_MS } from '../src/topics.js'

/** A fixture repository in a temporary directory: file name -> content. */
function project(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'thinking-line-project-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
const stateDir = () => mkdtempSync(join(tmpdir(), 'thinking-line-'))

const PYPROJECT = `[project]
name = "acme-secret-app"
version = "1.2.3"
dependencies = [
  "fastapi>=0.110",
  "SQLAlchemy[asyncio]>=2.0",  # the ORM
  'psycopg[binary]; python_version >= "3.11"',
]

[project.optional-dependencies]
dev = ["pytest>=8", "pytest-cov", "Ruff==0.5"]

[build-system]
requires = ["hatchling", "flask"]
`

test('a Python/pytest project: pyproject and requirements, most specific first, the language keeps the last place', () => {
  assert.deepEqual(deriveTopics(project({ 'pyproject.toml': PYPROJECT })), ['fastapi', 'postgresql', 'sqlalchemy', 'pytest', 'python'])
  // Poetry's tables; requirements.txt with options, comments and an include that is not followed.
  const poetry = project({
    'pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.11"\nrequests = "*"\n\n[tool.poetry.group.dev.dependencies]\npytest = "^8"\n',
    'requirements.txt': '-r other.txt\n--index-url https://pypi.example/simple\n# django\nDjango==5.0  # web\n\nhypothesis>=6\n',
  })
  assert.deepEqual(deriveTopics(poetry), ['django', 'hypothesis', 'pytest', 'python'])
})

test('a Node/React/TypeScript project: dependencies and devDependencies by name', () => {
  const dir = project({
    'package.json': JSON.stringify({
      name: 'acme-secret-web',
      scripts: { test: 'jest' },
      dependencies: { react: '18.3.1', 'react-dom': '18.3.1' },
      devDependencies: { typescript: '5.6.2', vite: '5.4.0', '@types/node': '20.1.0', '@acme/internal': '9.9.9' },
      peerDependencies: { vue: '3' },
    }),
  })
  assert.deepEqual(deriveTopics(dir), ['react', 'vite', 'typescript', 'nodejs', 'javascript'])
})

test('Go with a Dockerfile and a Helm chart: file presence, the chart\'s dependencies, direct requirements only', () => {
  const dir = project({
    'go.mod': 'module github.com/acme/secret-operator\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tk8s.io/client-go v0.30.0 // indirect\n)\n',
    Dockerfile: 'FROM --platform=$BUILDPLATFORM golang:1.22 AS build\nRUN go build\nFROM gcr.io/distroless/static:nonroot\n',
    'Chart.yaml': 'apiVersion: v2\nname: secret-operator\nmaintainers:\n  - name: redis\ndependencies:\n  - name: postgresql\n    version: 15.0.0\n',
  })
  assert.deepEqual(listManifests(dir), ['Chart.yaml', 'Dockerfile', 'go.mod'])
  assert.deepEqual(deriveTopics(dir), ['postgresql', 'helm', 'kubernetes', 'docker', 'go'])
  // Without the chart's dependency: the files alone.
  const plain = project({ 'go.mod': 'module x\n', Dockerfile: 'FROM scratch\n', 'Chart.yaml': 'name: x\n' })
  assert.deepEqual(deriveTopics(plain), ['helm', 'kubernetes', 'docker', 'go'])
})

test('a Terraform directory: providers from provider blocks, sources and resource types', () => {
  const dir = project({
    'main.tf': 'provider "aws" {\n  region = "eu-west-1"\n}\nresource "google_storage_bucket" "b" {}\n',
    'versions.tf': 'terraform {\n  required_providers {\n    azurerm = { source = "hashicorp/azurerm" }\n  }\n}\n',
    'notes.txt': 'provider "cloudflare"',
  })
  assert.deepEqual(deriveTopics(dir), ['aws', 'gcp', 'azure', 'terraform'])
})

test('other ecosystems: Cargo, Gemfile, pom.xml and Gradle', () => {
  assert.deepEqual(deriveTopics(project({ 'Cargo.toml': '[package]\nname = "x"\n\n[dependencies]\naxum = "0.7"\ntokio = { version = "1", features = ["full"] }\n\n[dependencies.serde]\nversion = "1"\n' })), ['axum', 'tokio', 'cargo', 'rust'])
  assert.deepEqual(deriveTopics(project({ Gemfile: "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngroup :test do\n  gem \"rspec-rails\"\nend\n" })), ['rails', 'rspec', 'ruby'])
  assert.deepEqual(deriveTopics(project({ 'pom.xml': '<project><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>' })), ['spring', 'maven', 'java'])
  assert.deepEqual(deriveTopics(project({ 'build.gradle.kts': 'plugins { id("org.jetbrains.kotlin.jvm") }\ndependencies { testImplementation("org.junit.jupiter:junit-jupiter:5.10.0") }\n' })), ['junit', 'gradle', 'kotlin'])
})

test('an empty directory and a missing one: no topics', () => {
  assert.deepEqual(deriveTopics(project({})), [])
  assert.deepEqual(deriveTopics(join(tmpdir(), 'thinking-line-no-such-dir')), [])
  assert.deepEqual(listManifests(join(tmpdir(), 'thinking-line-no-such-dir')), [])
})

test('a huge, a broken, a FIFO and a directory manifest count by presence alone, and nothing waits', () => {
  const big = JSON.stringify({ dependencies: { react: '1' }, description: 'x'.repeat(MANIFEST_MAX_BYTES) })
  assert.deepEqual(deriveTopics(project({ 'package.json': big })), ['javascript'])
  assert.deepEqual(deriveTopics(project({ 'package.json': '{"dependencies": {"react": ' })), ['javascript'])
  const dir = project({ 'go.mod': 'module x\nrequire github.com/gin-gonic/gin v1.9.0\n' })
  // requirements.txt: a link to a FIFO nobody writes (listed, never waited on); package.json: a directory (not listed).
  const fifo = join(stateDir(), 'fifo')
  execFileSync('mkfifo', [fifo])
  symlinkSync(fifo, join(dir, 'requirements.txt'))
  mkdirSync(join(dir, 'package.json'))
  const started = performance.now()
  assert.deepEqual(listManifests(dir), ['go.mod', 'requirements.txt'])
  assert.deepEqual(deriveTopics(dir), ['gin', 'go', 'python'])
  assert.ok(performance.now() - started < 1_000)
})

test('never more than five topics; the table order decides, a language keeps the last place', () => {
  const dir = project({
    'package.json': JSON.stringify({ dependencies: { next: '1', react: '1', pg: '1', '@aws-sdk/client-s3': '1', openai: '1', jest: '1', typescript: '1' } }),
    Dockerfile: 'FROM node:20\n',
  })
  const topics = deriveTopics(dir)
  assert.equal(topics.length, MAX_TOPICS)
  assert.deepEqual(topics, ['nextjs', 'react', 'postgresql', 'aws', 'typescript'])
  assert.ok(topics.some((t) => LANGUAGE_TOPICS.has(t)))
})

test('the table: topic names are vocabulary-shaped and every rule can fire', () => {
  for (const rule of TOPIC_RULES) {
    assert.match(rule.topic, /^[a-z0-9-]+$/)
    const matchers = Object.entries(rule).filter(([k]) => k !== 'topic')
    assert.ok(matchers.length > 0 && matchers.every(([, v]) => Array.isArray(v) && v.length > 0), rule.topic)
  }
  assert.equal(new Set(TOPIC_RULES.map((r) => r.topic)).size, TOPIC_RULES.length)
})

test('the cache in memory (the editor): kept while the manifests are unchanged, derived again after a change or the TTL; it never holds the path', () => {
  const cache = memoryTopicCache()
  const dir = project({ 'package.json': JSON.stringify({ dependencies: { react: '18.3.1' } }) })
  const now = 1_800_000_000_000
  assert.deepEqual(topicsFor(cache, dir, now), { topics: ['react', 'javascript'], cached: false })
  assert.deepEqual(topicsFor(cache, dir, now + 1_000), { topics: ['react', 'javascript'], cached: true })
  const stored = JSON.stringify(cache.read())
  for (const secret of [dir, 'thinking-line-project', 'package.json', '18.3.1']) assert.ok(!stored.includes(secret), secret)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { vue: '3' } }))
  utimesSync(join(dir, 'package.json'), new Date(now), new Date(now + 5_000))
  assert.deepEqual(topicsFor(cache, dir, now + 2_000), { topics: ['vue', 'javascript'], cached: false })
  assert.equal(topicsFor(cache, dir, now + 3_000 + TOPICS_TTL_MS).cached, false)
  for (let i = 0; i < CACHE_MAX_ENTRIES + 3; i++) topicsFor(cache, project({}), now + 10_000 + i)
  assert.equal(Object.keys((cache.read() as { entries: object }).entries).length, CACHE_MAX_ENTRIES)
})
