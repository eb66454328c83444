/** The current Unix time in whole seconds, as `created` fields carry it. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
