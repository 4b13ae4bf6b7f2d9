import type { Command } from 'commander';

export interface CompletionOption {
  /** `-p`, `--parameter`. */
  flags: string[];
  description: string;
  takesValue: boolean;
  choices: readonly string[];
}

/** One command of the tree, as completion needs it. */
export interface CompletionNode {
  /** `runyard job run`: the words that lead to it. */
  path: string;
  subcommands: Array<{ name: string; description: string }>;
  /** The options help shows. */
  options: CompletionOption[];
  /** Every flag that takes a value, hidden ones too: the next word is its value, not a command. */
  valueFlags: string[];
}

const firstLine = (text: string) => text.split('\n')[0].trim();

/** Every command under root (root first), with what a shell can complete after it. */
export function completionTree(root: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (cmd: Command, path: string) => {
    const help = cmd.createHelp();
    nodes.push({
      path,
      subcommands: help.visibleCommands(cmd).map((c) => ({ name: c.name(), description: firstLine(c.summary() || c.description()) })),
      options: help.visibleOptions(cmd).map((o) => ({
        flags: [o.short, o.long].filter((f): f is string => Boolean(f)),
        description: firstLine(o.description),
        takesValue: o.required || o.optional,
        choices: o.argChoices ?? [],
      })),
      valueFlags: cmd.options
        .filter((o) => o.required || o.optional)
        .flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f))),
    });
    for (const sub of cmd.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(root, root.name());
  return nodes;
}
