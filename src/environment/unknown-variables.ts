/**
 * Variables that look like parley's but are not: `DISCORD_TOKN`, `SLACK_BOT_TOKNE`, `CHAT_MODLE`. A
 * misspelled name is otherwise silently ignored (the terminal opens instead of Discord), so start-up
 * names each once, with the variable it probably meant.
 */
const ourPrefixes = ['DISCORD_', 'SLACK_', 'GATEWAY_'] as const;

export function unknownVariableWarnings({
  names,
  knownNames,
}: {
  names: Iterable<string>;
  knownNames: ReadonlySet<string>;
}): string[] {
  const warnings: string[] = [];
  for (const name of new Set(names)) {
    if (knownNames.has(name)) continue;
    const closest = closestKnownName(name, knownNames);
    const hasOurPrefix = ourPrefixes.some((prefix) => name.startsWith(prefix));
    if (closest === undefined && !hasOurPrefix) continue;
    warnings.push(
      `${name} is set but parley has no such variable, so it is ignored${closest ? ` (did you mean ${closest}?)` : ''}; docs/configuration.md lists every variable.`,
    );
  }
  return warnings;
}

// Close enough to be a typo: one edit for short names, two for longer ones.
function closestKnownName(name: string, knownNames: ReadonlySet<string>): string | undefined {
  const allowed = name.length <= 6 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const known of knownNames) {
    if (Math.abs(known.length - name.length) > allowed) continue;
    const distance = editDistance(name, known);
    if (distance <= allowed && (best === undefined || distance < best.distance))
      best = { name: known, distance };
  }
  return best?.name;
}

// Levenshtein distance, with a swap of two neighbours counting as one edit (TOKNE for TOKEN).
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
