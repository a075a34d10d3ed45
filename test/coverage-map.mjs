/**
 * tap's coverage map (.taprc): which test files run without coverage. These measure relevance
 * or compare with a reference over thousands of inputs; the code they run is covered by the
 * tests written for it, and V8's block counters made them about 1.5 times slower. Every other
 * test file counts towards coverage of everything (an empty list).
 */
const MEASUREMENTS = new Set([
  'dist/test/search/relevance.test.js',
  'dist/test/search/languages.test.js',
  'dist/test/search/constraint-relevance.test.js',
  'dist/test/search/analysis/lattice.test.js',
  'dist/test/search/embedded/word-sets.test.js'
])

export default (testFile) => (MEASUREMENTS.has(testFile) ? null : [])
