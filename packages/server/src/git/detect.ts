import { quoted } from '../errors/quoted.js';
import type { RepositorySnapshot } from './snapshot.js';

/**
 * Workflow type detection from a repository snapshot: Nextflow (main.nf, nextflow.config, .nf
 * files) or WDL (.wdl files), and the main file when none is given.
 */
export interface DetectedWorkflow {
  workflowType: 'nextflow' | 'wdl';
  mainFile: string;
  /** Only for WDL, and only when given. */
  importsFile?: string;
}

/** The repository holds no workflow Runyard can run, or the main file is missing or ambiguous. */
export class WorkflowDetectionError extends Error {
  override name = 'WorkflowDetectionError';
}

const MAX_LISTED = 20;

function listing(paths: string[]): string {
  const shown = paths.slice(0, MAX_LISTED).join(', ');
  return paths.length > MAX_LISTED ? `${shown} and ${paths.length - MAX_LISTED} more` : shown;
}

/** A hint from the user as a repository-relative path, or undefined when empty. */
function normalizeHint(value: string | undefined, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new WorkflowDetectionError(`The ${what} must be a path in the repository.`);
  const trimmed = value.trim();
  if (!trimmed) return undefined;
  if (/[\x00-\x1f\x7f]/.test(trimmed)) throw new WorkflowDetectionError(`The ${what} must not contain control characters.`);
  if (trimmed.startsWith('/')) throw new WorkflowDetectionError(`The ${what} ${quoted(trimmed)} must be relative to the repository root.`);
  const rel = trimmed.replace(/^(?:\.\/)+/, '');
  if (rel.split(/[\\/]/).includes('..')) throw new WorkflowDetectionError(`The ${what} ${quoted(trimmed)} must not contain "..".`);
  return rel;
}

/** Removes // and /* *\/ comments outside of string literals (enough for nextflow.config). */
function stripComments(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else out += c;
  }
  return out;
}

/** The body of the first `manifest { ... }` block, braces matched outside of strings. */
function manifestBlock(text: string): string | undefined {
  const m = /(?:^|[^\w.])manifest\s*\{/.exec(text);
  if (!m) return undefined;
  const start = m.index + m[0].length;
  let depth = 1;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

/** manifest.mainScript from the text of a nextflow.config (block or dotted form), if set. */
export function manifestMainScript(configText: string): string | undefined {
  const text = stripComments(configText);
  const block = manifestBlock(text);
  const inBlock = block === undefined ? null : /(?:^|[^\w.])mainScript\s*=\s*(['"])([^'"\n]+)\1/.exec(block);
  const dotted = /(?:^|[^\w.])manifest\.mainScript\s*=\s*(['"])([^'"\n]+)\1/.exec(text);
  const value = (inBlock ?? dotted)?.[2]?.trim();
  return value || undefined;
}

/**
 * Detects the workflow type and main file of a snapshot. A given main file decides the type by
 * its extension (.nf or .wdl) and must exist; so must a given imports file. Throws
 * WorkflowDetectionError with a message a person can act on.
 */
export async function detectWorkflow(
  snapshot: RepositorySnapshot,
  hints: { mainFile?: string; importsFile?: string },
): Promise<DetectedWorkflow> {
  const files = new Set(snapshot.files);
  const mainHint = normalizeHint(hints.mainFile, 'main file');
  const importsHint = normalizeHint(hints.importsFile, 'imports file');
  const wdlFiles = snapshot.files.filter((f) => f.toLowerCase().endsWith('.wdl'));
  const topLevelNf = snapshot.files.filter((f) => !f.includes('/') && f.endsWith('.nf'));
  const at = `at commit ${snapshot.commit.slice(0, 12)}`;

  if (importsHint !== undefined && !files.has(importsHint)) {
    throw new WorkflowDetectionError(`The imports file ${quoted(importsHint)} does not exist in the repository ${at}.`);
  }

  if (mainHint !== undefined) {
    if (!files.has(mainHint)) {
      const candidates = [...topLevelNf, ...wdlFiles];
      const hint = candidates.length ? ` Workflow files found: ${listing(candidates)}.` : '';
      throw new WorkflowDetectionError(`The main file ${quoted(mainHint)} does not exist in the repository ${at}.${hint}`);
    }
    if (mainHint.endsWith('.nf')) {
      if (importsHint !== undefined)
        throw new WorkflowDetectionError('An imports file is only used by WDL workflows; leave it out for a Nextflow workflow.');
      return { workflowType: 'nextflow', mainFile: mainHint };
    }
    if (mainHint.toLowerCase().endsWith('.wdl')) {
      return importsHint !== undefined
        ? { workflowType: 'wdl', mainFile: mainHint, importsFile: importsHint }
        : { workflowType: 'wdl', mainFile: mainHint };
    }
    throw new WorkflowDetectionError(`The main file ${quoted(mainHint)} must be a Nextflow script (.nf) or a WDL file (.wdl).`);
  }

  const hasConfig = files.has('nextflow.config');
  if (hasConfig || topLevelNf.length) {
    if (importsHint !== undefined)
      throw new WorkflowDetectionError('An imports file is only used by WDL workflows; leave it out for a Nextflow workflow.');
    if (hasConfig) {
      const config = await snapshot.readFile('nextflow.config');
      const mainScript = config === null ? undefined : manifestMainScript(config);
      if (mainScript !== undefined) {
        const rel = normalizeHint(mainScript, 'manifest.mainScript of nextflow.config');
        if (rel === undefined || !files.has(rel)) {
          throw new WorkflowDetectionError(
            `nextflow.config sets manifest.mainScript = '${mainScript}', but the repository has no such file ${at}.`,
          );
        }
        return { workflowType: 'nextflow', mainFile: rel };
      }
    }
    if (files.has('main.nf')) return { workflowType: 'nextflow', mainFile: 'main.nf' };
    if (topLevelNf.length === 1) return { workflowType: 'nextflow', mainFile: topLevelNf[0]! };
    if (topLevelNf.length > 1) {
      throw new WorkflowDetectionError(
        `This Nextflow repository has several top-level scripts (${listing(topLevelNf)}) and no main.nf; give the main file.`,
      );
    }
    const anyNf = snapshot.files.filter((f) => f.endsWith('.nf'));
    const hint = anyNf.length ? ` Nextflow scripts found: ${listing(anyNf)}.` : '';
    throw new WorkflowDetectionError(
      `This repository has a nextflow.config but no main.nf and no manifest.mainScript; give the main file.${hint}`,
    );
  }

  if (wdlFiles.length === 1) {
    const mainFile = wdlFiles[0]!;
    return importsHint !== undefined ? { workflowType: 'wdl', mainFile, importsFile: importsHint } : { workflowType: 'wdl', mainFile };
  }
  if (wdlFiles.length > 1) {
    throw new WorkflowDetectionError(`This WDL repository has several .wdl files (${listing(wdlFiles)}); give the main file.`);
  }
  throw new WorkflowDetectionError(
    `No workflow found in the repository ${at}: Runyard looks for a Nextflow main.nf, nextflow.config or .nf script at the top level, or a WDL (.wdl) file.`,
  );
}
