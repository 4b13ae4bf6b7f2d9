/** An option parser that gathers every use of a repeatable option, in order. */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
