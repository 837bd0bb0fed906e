#!/usr/bin/env node
// @ts-check
import { main } from '../src/invoke.js'

await main(process.argv.slice(2), process.env)
