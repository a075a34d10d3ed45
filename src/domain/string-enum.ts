import { Type } from '@sinclair/typebox'

/**
 * A string enum as plain JSON Schema `enum` (rather than a union of literals), so a bad
 * value gets one clear error listing the allowed values, and OpenAPI shows a dropdown.
 */
export function StringEnum<const T extends readonly string[]> (values: T, options: { description?: string, default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}
