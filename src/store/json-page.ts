/** A list page as the bytes the API sends: the items' JSON, joined into one JSON array, UTF-8. */

/**
 * The items encoded once into one buffer of its own, never a slice of Node's shared pool:
 * a page that goes back from the list thread in a message (structured clone) carries its
 * whole underlying memory.
 */
export function jsonArrayBytes (items: readonly string[]): Buffer<ArrayBuffer> {
  let length = items.length === 0 ? 2 : items.length + 1
  for (const item of items) length += Buffer.byteLength(item)
  const out = Buffer.allocUnsafeSlow(length) as Buffer<ArrayBuffer>
  let at = 0
  out[at++] = 0x5b // [
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = 0x2c // ,
    at += out.write(items[i] as string, at)
  }
  out[at] = 0x5d // ]
  return out
}
