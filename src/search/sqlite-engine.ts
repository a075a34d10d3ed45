/** The embedded engine's stable import path; the engine itself lives in ./sqlite/. */
export { SEARCH_FILE, SqliteSearchEngine, type SqliteSearchEngineOptions } from './sqlite/engine.js'
