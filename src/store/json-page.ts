/** A list page as the bytes the API sends: the items' JSON (UTF-8), joined into one JSON array. */

/**
 * In a buffer of its own, never a slice of Node's shared pool: the list thread hands it to
 * the API thread by transfer, which detaches the whole underlying memory.
 */
export function jsonArrayBytes (items: readonly Uint8Array[]): Buffer<ArrayBuffer> {
  let length = items.length === 0 ? 2 : items.length + 1
  for (const item of items) length += item.byteLength
  const out = Buffer.allocUnsafeSlow(length) as Buffer<ArrayBuffer>
  let at = 0
  out[at++] = 0x5b // [
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = 0x2c // ,
    const item = items[i] as Uint8Array
    out.set(item, at)
    at += item.byteLength
  }
  out[at] = 0x5d // ]
  return out
}
