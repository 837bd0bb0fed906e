#!/usr/bin/env node
import * as nodeModule from 'node:module'

// Node 22.1+ keeps compiled modules between runs; Node 20 has no such cache.
const enableCompileCache = Reflect.get(nodeModule, 'enableCompileCache')
if (typeof enableCompileCache === 'function') enableCompileCache()
const { main } = await import('../dist/main.js')

process.exitCode = await main(process.argv)
