import { InvalidArgumentError } from 'commander';

/** An option parser for a number (fractions allowed) from min to max; `what` names the unit in the message. */
export function numberIn(min: number, max: number, what = 'a number'): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected ${what} from ${min} to ${max}.`);
    }
    return n;
  };
}
