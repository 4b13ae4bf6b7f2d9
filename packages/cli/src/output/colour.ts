import type { CliContext } from '../context.js';

/**
 * Bold and colour only for a person at a terminal that shows them: not when the stream is piped or
 * a file, TERM is dumb, NO_COLOR is set (no-color.org: any non-empty value) or --no-color was given.
 */
export function colourOn(ctx: CliContext, stream: { isTTY?: boolean } = ctx.stdout): boolean {
  if (!stream.isTTY || ctx.noColor) return false;
  if (ctx.env.TERM === 'dumb') return false;
  return !ctx.env.NO_COLOR;
}
