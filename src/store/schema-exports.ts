/** Table types of the export tables (migrations/0005_exports.sql); merged into Database in schema.ts. */
export interface ExportsTables {}
