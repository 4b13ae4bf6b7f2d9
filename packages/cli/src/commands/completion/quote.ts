/** Text inside single quotes for sh and zsh: each ' closes the quote, is escaped, and reopens it. */
export const shQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Text inside single quotes for fish, where \\ and \' are the only escapes. */
export const fishQuote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
