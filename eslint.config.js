import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', '.tmp'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // One clock: all service time comes from src/platform/clock.ts.
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'Read time from the service Clock.' }],
    },
  },
  {
    // Tests read JSON bodies loosely; the OpenAPI validator checks their shape.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/platform/clock.ts', 'scripts/**', 'bench/**', 'tools/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
)
