/**
 * Array.prototype.map whose result is always a packed array. V8's builtin map returns a
 * packed array but the map TurboFan inlines returns a holey one, so the arrays a function
 * makes changed kind whenever that function was optimized or deoptimized, and every hot
 * function reading them deoptimized on the other kind ("wrong map") and ran unoptimized for
 * the next searches: 2–9 ms each instead of ~0.4 (docs/benchmarks.md).
 */
export function mapPacked<T, U> (list: readonly T[], f: (item: T, index: number) => U): U[] {
  const out: U[] = []
  for (let i = 0; i < list.length; i++) out.push(f(list[i] as T, i))
  return out
}
