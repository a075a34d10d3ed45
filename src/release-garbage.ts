/**
 * A full garbage collection, when node runs with --expose-gc (as `npm start` does), after
 * a one-off bulk allocation: the kuromoji load, a search thread's index load. Their
 * garbage is large ArrayBuffers that V8 frees only at its next full collection, which an
 * idle server may not run for minutes, so it would stay in the RSS. Without the flag
 * (tests, CLIs) this does nothing.
 */
export function releaseGarbage (): void {
  (globalThis as { gc?: () => void }).gc?.()
}
