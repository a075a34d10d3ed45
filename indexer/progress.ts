/** A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise (CI logs). */
export function progressBar (label: string, stream: NodeJS.WriteStream = process.stderr): (done: number, total: number) => void {
  let lastDecile = -1
  return (done, total) => {
    const ratio = total === 0 ? 1 : done / total
    if (stream.isTTY) {
      const width = 30
      const filled = Math.round(ratio * width)
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done >= total ? '\n' : ''}`)
      return
    }
    const decile = Math.floor(ratio * 10)
    if (decile !== lastDecile) {
      lastDecile = decile
      stream.write(`${label} ${Math.round(ratio * 100)}% (${done}/${total})\n`)
    }
  }
}
