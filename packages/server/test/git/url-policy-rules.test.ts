// The git URL policy (git/url-policy.ts) rule by rule: each refused input with the reason it is given (the
// message says what to change), each accepted form with what git fetches. Pure: nothing here reaches git.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertFetchable,
  GitUrlError,
  ownerNumericId,
  repositoryNumericId,
  resolveRepositoryUrl,
  type GitPolicy,
  type ResolvedRepository,
} from '../../src/git/url-policy.js';

const policy: GitPolicy = { allowedHosts: [], rewrites: {} };
/** An operator who (wrongly) allowed addresses and odd names: the policy still refuses them. */
const permissive: GitPolicy = {
  allowedHosts: ['127.0.0.1', 'a:b', 'a]b', 'a<b', '１２７.０.０.１', 'github.123', 'git_hub.example', 'a..b'],
  rewrites: {},
};

/** The message an input is refused with ('accepted' when it is not). */
function refusal(input: unknown, p: GitPolicy = policy): string {
  try {
    resolveRepositoryUrl(input as string, p);
  } catch (err) {
    assert.ok(err instanceof GitUrlError, `${JSON.stringify(input)}: ${String(err)}`);
    assert.equal(err.name, 'GitUrlError');
    return err.message;
  }
  return 'accepted';
}

const resolved = (input: string, p: GitPolicy = policy) => resolveRepositoryUrl(input, p);

describe('git URL policy, rule by rule', () => {
  it('refuses what is not text, control characters, empty and overlong input', () => {
    assert.equal(refusal(42), 'The repository URL must be a string.');
    assert.equal(refusal(undefined), 'The repository URL must be a string.');
    for (const c of ['\u0000', '\u0001', '\t', '\n', '\u001f', '\u007f']) {
      assert.equal(
        refusal(`https://github.com/acme/re${c}po`),
        'The repository URL must not contain control characters.',
        JSON.stringify(c),
      );
    }
    assert.equal(refusal(''), 'The repository URL is empty.');
    assert.equal(refusal('    '), 'The repository URL is empty.');
    // Spaces around are trimmed, inside they are refused.
    assert.equal(resolved('   https://github.com/acme/pipe').url, 'https://github.com/acme/pipe');
    assert.equal(resolved('https://github.com/acme/pipe   ').url, 'https://github.com/acme/pipe');
    assert.equal(refusal('https://github.com/acme/re po'), 'The repository URL must not contain spaces.');
    assert.equal(refusal('https://github.com/ acme/repo'), 'The repository URL must not contain spaces.');
    assert.equal(refusal('https://github.com/acme/re\u00a0po'), 'The repository URL must not contain spaces.');
    // 2048 characters at most, counted after trimming.
    const at = (n: number) => `https://gitlab.com/acme/${'x'.repeat(n - 'https://gitlab.com/acme/'.length)}`;
    assert.equal(at(2048).length, 2048);
    assert.equal(resolved(`  ${at(2048)}  `).name.length, 2048 - 24);
    assert.equal(refusal(at(2049)), 'The repository URL is longer than 2048 characters.');
  });

  it('says why another scheme or address form is refused, never echoing what could be a credential', () => {
    const cases: [string, RegExp][] = [
      ['ext::sh -c touch% /tmp/pwned', /^git transport syntax \("<transport>::<address>"\) is not allowed/],
      ['fd::17', /^git transport syntax/],
      ['https::github.com/acme/repo', /^git transport syntax/],
      ['/srv/x::y', /^git transport syntax/],
      ['https:/github.com/acme/repo', /^The repository URL must be written https:\/\/HOST\/OWNER\/REPO\.$/],
      ['HTTPS:github.com/acme/repo', /^The repository URL must be written https:\/\/HOST\/OWNER\/REPO\.$/],
      ['http://github.com/acme/repo', /^Plain http:\/\/ is not allowed; give the repository's https:\/\/ URL\.$/],
      ['HTTP://github.com/acme/repo', /^Plain http:\/\/ is not allowed/],
      ['http:github.com', /^Plain http:\/\/ is not allowed/],
      ['file:///etc/passwd', /^The "file:" scheme is not allowed; give the repository's https:\/\/ URL\.$/],
      ['file:/etc/passwd', /^The "file:" scheme is not allowed/],
      ['SSH:host/repo', /^The "ssh:" scheme is not allowed/],
      ['git+ssh:host/repo', /^The "git\+ssh:" scheme is not allowed/],
      ['rsync:host/repo', /^The "rsync:" scheme is not allowed/],
      ['gopher://host/repo', /^The "gopher:" scheme is not allowed/],
      ['git@github.com:acme/repo.git', /^SSH addresses like git@host:owner\/repo are not allowed/],
      ['github.com:acme/repo', /^SSH addresses like/],
      ['gopher:host/repo', /^SSH addresses like/],
      ['-x:y', /^SSH addresses like/],
      ['-uevil', /^The repository URL must not start with "-"/],
      ['--upload-pack=touch /tmp/pwned', /^The repository URL must not start with "-"/],
      ['github.com/acme/repo', /^The repository URL must be an https:\/\/ URL such as https:\/\/github\.com\/OWNER\/REPO\.$/],
      ['/srv/repo', /^The repository URL must be an https:\/\/ URL such as/],
      ['a b:c', /^The repository URL must be an https:\/\/ URL such as/],
      ['x/y:z', /^The repository URL must be an https:\/\/ URL such as/],
    ];
    for (const [input, message] of cases) assert.match(refusal(input), message, input);
    // A long scheme is cut short in the message.
    const scheme = `a${'b'.repeat(69)}`;
    assert.equal(
      refusal(`${scheme}://host/x`),
      `The "${scheme.slice(0, 60)}...:" scheme is not allowed; give the repository's https:// URL.`,
    );
  });

  it('refuses backslashes, queries, fragments and credentials in an https URL', () => {
    assert.equal(refusal('https://github.com/acme/repo\\..\\x'), 'The repository URL must not contain a backslash.');
    assert.equal(refusal('https://github.com\\@evil.example/acme/repo'), 'The repository URL must not contain a backslash.');
    for (const input of ['https://github.com/acme/repo?x=1', 'https://github.com/acme/repo#main', 'https://github.com?/a/b']) {
      assert.match(refusal(input), /^The repository URL must not contain a query string or a fragment/, input);
    }
    for (const input of [
      'https://user:token@github.com/acme/repo',
      'https://token@github.com/acme/repo',
      'https://github.com@evil.example/a/b',
    ]) {
      const message = refusal(input);
      assert.match(message, /^The repository URL must not contain a user name or credentials/, input);
      assert.ok(!message.includes('token'), message);
    }
    // An @ in the path is no credential: it is refused as a character a path may not hold.
    assert.match(refusal('https://github.com/acme/re@po'), /^The repository URL has an invalid path segment "re@po"/);
  });

  it('refuses IP addresses in every spelling, other ports and invalid host names, even when an operator allowed them', () => {
    const ip = (host: string) => `The repository URL must name a host, not an IP address ("${host}").`;
    assert.equal(refusal('https://[::1]/acme/repo', permissive), 'The repository URL must name a host, not an IP address.');
    assert.equal(refusal('https://[::ffff:7f00:1]:443/acme/repo', permissive), 'The repository URL must name a host, not an IP address.');
    assert.equal(refusal('https://127.0.0.1/acme/repo', permissive), ip('127.0.0.1'));
    assert.equal(refusal('https://127.0.0.1:443/acme/repo', permissive), ip('127.0.0.1'));
    assert.equal(refusal('https://127.0.0.1./acme/repo', permissive), ip('127.0.0.1.'));
    for (const host of ['127.1', '0', '2130706433', '017700000001', '0x7f.0.0.1', '0X7F.1', 'a.b.0x7f', 'github.123', '0x', '10.0.0.1']) {
      assert.equal(refusal(`https://${host}/acme/repo`, { allowedHosts: [host], rewrites: {} }), ip(host), host);
    }
    // Full-width digits that a URL parser reads as 127.0.0.1.
    assert.equal(refusal('https://１２７.０.０.１/acme/repo', permissive), ip('???.?.?.?'));
    // What a URL parser cannot read as a host at all is refused the same way.
    for (const host of ['a:b', 'a]b', 'a<b']) assert.equal(refusal(`https://${host}:443/acme/repo`, permissive), ip(host), host);

    assert.equal(refusal('https://github.com:8443/acme/repo'), 'The repository URL must use the default https port; remove ":8443".');
    assert.equal(refusal('https://github.com:/acme/repo'), 'The repository URL must use the default https port; remove ":".');
    assert.equal(refusal('https://github.com:0443/acme/repo'), 'The repository URL must use the default https port; remove ":0443".');
    assert.equal(refusal('https://github.com:44\u00e9/acme/repo'), 'The repository URL must use the default https port; remove ":44?".');
    assert.equal(
      refusal(`https://github.com:${'9'.repeat(70)}/acme/repo`),
      `The repository URL must use the default https port; remove ":${'9'.repeat(60)}...".`,
    );
    assert.equal(resolved('https://github.com:443/acme/pipe').url, 'https://github.com/acme/pipe');

    assert.equal(refusal('https:///acme/repo'), 'The repository URL has no host.');
    assert.equal(refusal('https://:443/acme/repo'), 'The repository URL has no host.');
    assert.equal(refusal('https://'), 'The repository URL has no host.');
    for (const host of ['git_hub.example', 'a..b', '-github.com', 'github-.com', 'gith%75b.com', `${'x'.repeat(64)}.ex`, 'github.com..']) {
      assert.equal(
        refusal(`https://${host}/acme/repo`, { allowedHosts: [host], rewrites: {} }),
        `The repository URL has an invalid host name "${host.length > 60 ? `${host.slice(0, 60)}...` : host}".`,
        host,
      );
    }
    // Labels of 1 and 63 characters, with hyphens and digits inside, are host names.
    for (const host of ['a.example', `${'x'.repeat(63)}.example`, 'git-1.ex-ample.org', '9git.example']) {
      assert.equal(resolved(`https://${host}/acme/repo`, { allowedHosts: [host], rewrites: {} }).host, host, host);
    }
  });

  it('refuses hosts that are not allowed, naming those that are', () => {
    assert.equal(
      refusal('https://evil.example/acme/repo', { allowedHosts: ['Mirror.Example.ORG.'], rewrites: {} }),
      'The git host "evil.example" is not allowed. Allowed hosts: bitbucket.org, github.com, gitlab.com, mirror.example.org. An administrator can add hosts.',
    );
    for (const host of ['github.com.evil.example', 'evilgithub.com', 'githu.com', 'www.github.com']) {
      assert.match(refusal(`https://${host}/acme/repo`), /is not allowed/, host);
    }
    assert.equal(resolved('https://GitHub.com./acme/pipe').host, 'github.com');
    // A policy read from a file that lacks the fields still has the defaults.
    assert.equal(resolved('https://github.com/acme/pipe', {} as GitPolicy).fetchUrl, 'https://github.com/acme/pipe.git');
  });

  it('refuses path segments that are empty, "." or "..", start with "-", are percent-encoded or hold other characters', () => {
    const cases: [string, string][] = [
      ['https://github.com//acme/repo', 'The repository URL has an empty path segment ("//").'],
      ['https://github.com/acme//repo', 'The repository URL has an empty path segment ("//").'],
      ['https://github.com/acme/repo//', 'The repository URL has an empty path segment ("//").'],
      ['https://github.com/acme/./repo', 'The repository URL must not contain "." or ".." path segments.'],
      ['https://github.com/acme/../repo', 'The repository URL must not contain "." or ".." path segments.'],
      ['https://github.com/acme/..', 'The repository URL must not contain "." or ".." path segments.'],
      ['https://github.com/-acme/repo', 'The repository URL has a path segment starting with "-", which is not allowed.'],
      ['https://github.com/acme/--upload-pack=x', 'The repository URL has a path segment starting with "-", which is not allowed.'],
      ['https://github.com/acme/%2e%2e', 'The repository URL must not contain percent-encoded characters.'],
      ['https://github.com/acme/a%', 'The repository URL must not contain percent-encoded characters.'],
    ];
    for (const [input, message] of cases) assert.equal(refusal(input), message, input);
    const invalid = (segment: string) =>
      `The repository URL has an invalid path segment "${segment}" (letters, digits, ".", "_", "-" and "~" only).`;
    assert.equal(refusal('https://github.com/acme/r$po'), invalid('r$po'));
    assert.equal(refusal('https://github.com/acme/r\u00e9po'), invalid('r?po'));
    assert.equal(refusal('https://github.com/acme/repo:x'), invalid('repo:x'));
    const long = `${'y'.repeat(59)}$${'z'.repeat(10)}`;
    assert.equal(refusal(`https://github.com/acme/${long}`), invalid(`${long.slice(0, 60)}...`));
    const sixty = `${'y'.repeat(59)}$`;
    assert.equal(refusal(`https://github.com/acme/${sixty}`), invalid(sixty));
    // Names may hold letters, digits, ".", "_", "~" and "-" (not first).
    const ok = resolved('https://gitlab.com/_a/~b/.c/D-e.f_g~h');
    assert.deepEqual([ok.ownerPath, ok.name], ['_a/~b/.c', 'D-e.f_g~h']);
  });

  it('needs an owner and a repository; GitHub and bitbucket.org have exactly two path parts', () => {
    for (const input of [
      'https://github.com',
      'https://github.com/',
      'https://github.com/acme',
      'https://gitlab.com/acme/',
      'https://gitlab.com/acme.git',
    ]) {
      const host = new URL(input).host;
      assert.equal(refusal(input), `The repository URL must name an owner and a repository: https://${host}/OWNER/REPO.`, input);
    }
    assert.equal(
      refusal('https://github.com/acme/repo/tree'),
      'A github.com repository URL has exactly two path parts: https://github.com/OWNER/REPO.',
    );
    assert.equal(
      refusal('https://bitbucket.org/a/b/c'),
      'A bitbucket.org repository URL has exactly two path parts: https://bitbucket.org/OWNER/REPO.',
    );
    const deep = resolved('https://gitlab.com/a/b/c/d/repo');
    assert.deepEqual([deep.ownerPath, deep.name, deep.url], ['a/b/c/d', 'repo', 'https://gitlab.com/a/b/c/d/repo']);
  });

  it('drops one ".git" from the name, never the whole name', () => {
    assert.equal(resolved('https://github.com/acme/pipe.GIT').name, 'pipe');
    assert.equal(resolved('https://github.com/acme/x.git').name, 'x');
    assert.equal(resolved('https://github.com/acme/pipe.git.git').name, 'pipe.git');
    assert.equal(resolved('https://github.com/acme/pipegit').name, 'pipegit');
    assert.equal(resolved('https://github.com/acme.git/pipe').ownerPath, 'acme.git');
    for (const input of ['https://github.com/acme/.git', 'https://gitlab.com/a/b/.git', 'https://github.com/acme/.git/']) {
      assert.equal(refusal(input), 'The repository URL has no repository name.', input);
    }
  });

  it("maps Bitbucket Server's /projects/KEY/repos/REPO[/browse] to /scm/key/REPO on an added host only", () => {
    const p: GitPolicy = { allowedHosts: ['bitbucket.acme.example'], rewrites: {} };
    const at = (pathPart: string, q: GitPolicy = p) => {
      const r = resolveRepositoryUrl(`https://bitbucket.acme.example/${pathPart}`, q);
      return [r.ownerPath, r.name, r.url.replace('https://bitbucket.acme.example/', '')];
    };
    assert.deepEqual(at('projects/KEY/repos/Pipe'), ['KEY', 'Pipe', 'scm/key/Pipe']);
    assert.deepEqual(at('projects/KEY/repos/Pipe/browse'), ['KEY', 'Pipe', 'scm/key/Pipe']);
    assert.deepEqual(at('projects/KEY/repos/Pipe.git/'), ['KEY', 'Pipe', 'scm/key/Pipe']);
    // Any other shape is an ordinary path of owner and repository.
    assert.deepEqual(at('projects/KEY/repos/Pipe/source'), ['projects/KEY/repos/Pipe', 'source', 'projects/KEY/repos/Pipe/source']);
    assert.deepEqual(at('projects/KEY/repos/Pipe/browse/x'), ['projects/KEY/repos/Pipe/browse', 'x', 'projects/KEY/repos/Pipe/browse/x']);
    assert.deepEqual(at('projects/KEY/repos'), ['projects/KEY', 'repos', 'projects/KEY/repos']);
    assert.deepEqual(at('projects/KEY/other/Pipe'), ['projects/KEY/other', 'Pipe', 'projects/KEY/other/Pipe']);
    assert.deepEqual(at('project/KEY/repos/Pipe'), ['project/KEY/repos', 'Pipe', 'project/KEY/repos/Pipe']);
    // gitlab.com is not a Bitbucket Server.
    const g = resolved('https://gitlab.com/projects/KEY/repos/Pipe');
    assert.deepEqual([g.ownerPath, g.name, g.url], ['projects/KEY/repos', 'Pipe', 'https://gitlab.com/projects/KEY/repos/Pipe']);
  });
});

describe('git URL policy: rewrites, rule by rule', () => {
  const rewrite = (rewrites: Record<string, string>, input = 'https://github.com/acme/pipe', allowedHosts = ['mirror.example.org']) =>
    resolveRepositoryUrl(input, { allowedHosts, rewrites });
  const refusedRewrite = (target: string, input = 'https://github.com/acme/pipe') => {
    try {
      rewrite({ 'https://github.com/': target }, input);
    } catch (err) {
      assert.ok(err instanceof GitUrlError, String(err));
      return err.message;
    }
    return 'accepted';
  };

  it('the longest matching prefix wins, whatever the order; an empty or non-matching prefix does nothing', () => {
    const longFirst = { 'https://github.com/acme/': 'file:///srv/acme/', 'https://github.com/': 'file:///srv/all/' };
    const shortFirst = { 'https://github.com/': 'file:///srv/all/', 'https://github.com/acme/': 'file:///srv/acme/' };
    for (const rewrites of [longFirst, shortFirst]) {
      assert.equal(rewrite(rewrites).fetchUrl, 'file:///srv/acme/pipe');
      assert.equal(rewrite(rewrites, 'https://github.com/other/pipe').fetchUrl, 'file:///srv/all/other/pipe');
    }
    const none = rewrite({
      '': 'file:///srv/everything/',
      'http://github.com/': 'file:///srv/http/',
      'https://gitlab.com/': 'file:///srv/gl/',
    });
    assert.deepEqual([none.fetchUrl, none.allowFile], ['https://github.com/acme/pipe.git', false]);
    // Prefixes are matched on the canonical URL: the user's spelling does not matter, the prefix's scheme and host case neither.
    assert.equal(
      rewrite({ 'HTTPS://GitHub.COM./acme/': 'file:///srv/m/' }, 'https://GITHUB.com/acme/pipe.git/').fetchUrl,
      'file:///srv/m/pipe',
    );
    // The path of a prefix is compared as it is.
    assert.equal(rewrite({ 'https://github.com/ACME/': 'file:///srv/m/' }).fetchUrl, 'https://github.com/acme/pipe.git');
    assert.equal(rewrite({ 'https://github.com/acme/pipe': 'file:///srv/exact' }).fetchUrl, 'file:///srv/exact');
  });

  it('a file: target must be an absolute plain path; it is the only way to allowFile', () => {
    const r = rewrite({ 'https://github.com/': 'FILE:///srv/mirror/' });
    assert.deepEqual([r.fetchUrl, r.allowFile, r.url], ['file:///srv/mirror/acme/pipe', true, 'https://github.com/acme/pipe']);
    for (const target of ['file://host/srv/', 'file:/srv/', 'file:srv/']) {
      assert.equal(refusedRewrite(target), 'A file: rewrite target must be an absolute file:///path URL.', target);
    }
    for (const target of ['file:///srv/../etc/', 'file:///srv/./x/', 'file:///srv?x/', 'file:///srv#x/', 'file:///../']) {
      assert.equal(refusedRewrite(target), 'A file: rewrite target must be a plain absolute path without "..", "?" or "#".', target);
    }
    assert.equal(rewrite({ 'https://github.com/': 'file:///srv/..x/' }).fetchUrl, 'file:///srv/..x/acme/pipe');
    for (const target of [
      'file:///srv/my mirror/',
      'file:///srv/\u0000/',
      'file:///srv/\u007f/',
      'https://mirror.example.org/\t/',
      'file:///srv/\u001f',
    ]) {
      assert.equal(refusedRewrite(target), 'The configured rewrite target contains spaces or control characters.', JSON.stringify(target));
    }
  });

  it('an https target is checked as a repository URL is, and must be on an allowed host', () => {
    const r = rewrite({ 'https://github.com/acme/': 'HTTPS://Mirror.Example.org:443/Acme-Mirror/' });
    assert.deepEqual([r.fetchUrl, r.allowFile], ['https://mirror.example.org/Acme-Mirror/pipe.git', false]);
    assert.equal(
      rewrite({ 'https://github.com/acme/pipe': 'https://mirror.example.org/m/p/' }).fetchUrl,
      'https://mirror.example.org/m/p.git',
    );
    assert.equal(
      refusedRewrite('https://other.example/m/'),
      'The rewrite target host "other.example" is not an allowed git host; add it to the allowed hosts.',
    );
    assert.equal(refusedRewrite('https://127.0.0.1/m/'), 'The rewrite target must name a host, not an IP address ("127.0.0.1").');
    assert.equal(refusedRewrite('https://mirror.example.org/../m/'), 'The rewrite target must not contain "." or ".." path segments.');
    assert.equal(
      refusedRewrite('https://u@mirror.example.org/m/'),
      'The rewrite target must not contain a user name or credentials; Runyard imports public repositories over https.',
    );
  });

  it('refuses a target without a path, or of another scheme', () => {
    const p: GitPolicy = {
      allowedHosts: ['mirror.example.org'],
      rewrites: { 'https://github.com/acme/pipe': 'https://mirror.example.org/' },
    };
    assert.equal(refusal('https://github.com/acme/pipe', p), 'The rewrite target must have a path.');
    for (const target of ['http://mirror.example.org/', 'ext::sh', 'ssh://mirror/', 'mirror.example.org/']) {
      assert.equal(refusedRewrite(target), 'A rewrite target must start with https:// or file:///.', target);
    }
  });
});

describe('assertFetchable: the second line of defence before git is spawned', () => {
  const repo = (fetchUrl: string, allowFile = false): ResolvedRepository => ({
    url: 'https://github.com/a/b',
    fetchUrl,
    allowFile,
    host: 'github.com',
    ownerPath: 'a',
    name: 'b',
  });

  it('passes what the policy resolves, and only that', () => {
    assertFetchable(resolved('https://github.com/acme/pipe'));
    assertFetchable(repo('https://github.com/a/b.git'));
    assertFetchable(repo('https://git-1.example.org/a/b.git'));
    assertFetchable(repo('file:///srv/mirror/a/b', true));
    for (const [fetchUrl, allowFile] of [
      ['file:///srv/mirror/a/b', false],
      ['file://host/srv/a/b', true],
      ['file:/srv/a/b', true],
      ['http://github.com/a/b.git', false],
      ['https://github.com', false],
      ['https://GitHub.com/a/b.git', false],
      ['https://user@github.com/a/b.git', false],
      ['https://github.com:22/a/b.git', false],
      ['xhttps://github.com/a/b.git', false],
      ['ext::https://github.com/a/b.git', false],
      ['https://github.com/a b.git', false],
      ['https://github.com/a\u0000b.git', false],
      ['https://github.com/a\u007fb.git', false],
      ['https://github.com/a/b.git\n', false],
      ['file:///srv/a b', true],
    ] as const) {
      assert.throws(() => assertFetchable(repo(fetchUrl, allowFile)), /not resolved through the git URL policy/, JSON.stringify(fetchUrl));
    }
  });
});

describe('numeric ids: stable across releases and spellings', () => {
  it('are the values they have always been', () => {
    assert.equal(repositoryNumericId('https://github.com/acme/pipe'), 275060045089076);
    assert.equal(ownerNumericId('github.com', 'acme'), 271231284089675);
  });

  it('ignore case, surrounding space, trailing slashes and one ".git"', () => {
    const id = repositoryNumericId('https://github.com/acme/pipe');
    for (const spelling of [
      '  https://github.com/acme/pipe ',
      'HTTPS://GITHUB.COM/ACME/PIPE',
      'https://github.com/acme/pipe///',
      'https://github.com/acme/pipe.git//',
    ]) {
      assert.equal(repositoryNumericId(spelling), id, spelling);
    }
    assert.notEqual(repositoryNumericId('https://github.com/acme/pipe/x'), id);
    assert.notEqual(repositoryNumericId('https://github.com/acme/pip'), id);
    const owner = ownerNumericId('github.com', 'acme');
    for (const [host, path] of [
      [' GitHub.com. ', ' ACME '],
      ['github.com.', 'acme'],
    ])
      assert.equal(ownerNumericId(host, path), owner, host);
    assert.notEqual(ownerNumericId('github.com', 'acme2'), owner);
    assert.notEqual(ownerNumericId('github.co', 'macme'), owner);
  });
});
