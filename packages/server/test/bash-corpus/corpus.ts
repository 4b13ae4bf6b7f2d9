// Real-world bash commands, each with exactly what it must print as a bash job of Runyard: its stdout (the job's log
// without Runyard's own `Runyard: ` lines; the commands keep stderr empty unless the entry is about it) and its exit
// code. Parameters follow the CloudOS convention (docs/bash-jobs.md): `<prefix><name>` and `<value>` are appended to
// the command's last simple command, whose own "$@" is then empty; where they cannot be (the command ends in done,
// fi, esac, a group, `;`, a comment or a here-document) they are its positional parameters instead.

export interface CorpusParam {
  /** `--` when left out (`-p --name=value` of the CloudOS client). */
  prefix?: string;
  name: string;
  textValue: string;
}

export interface CorpusEntry {
  name: string;
  /** Where the idiom comes from. */
  source: string;
  command: string;
  params?: CorpusParam[];
  /** What the job prints, exactly (stdout and stderr, which share the log, without Runyard's lines). */
  stdout: string;
  /** 0 when left out. */
  exitCode?: number;
  /** Its parameters are its positional parameters (the log then says so with POSITIONAL_NOTE); else they are appended. */
  positional?: boolean;
  /** Files of the job's work directory after it ran, and their exact content. */
  files?: Record<string, string>;
}

const CLOUDOS_README = 'cloudos-cli README, "Send a bash job" (--command, --parameter)';
const CLOUDOS = 'CloudOS bash jobs: parameters appended to the command';
const NF_CORE = 'nf-core modules (script blocks of main.nf)';
const SHELL = 'common shell idiom';

/** A multi-line command. */
const lines = (...text: string[]) => text.join('\n');

export const CORPUS: CorpusEntry[] = [
  // CloudOS: the client's own examples, and parameters appended to the last simple command.
  {
    name: 'the README example writes its file with the parameters appended to echo',
    source: CLOUDOS_README,
    command: "echo 'send' > new_file.txt",
    params: [
      { prefix: '-', name: 'test_variable', textValue: 'value' },
      { prefix: '--', name: 'flag', textValue: 'activate' },
      { prefix: '', name: 'send', textValue: 'yes' },
    ],
    stdout: '',
    files: { 'new_file.txt': 'send -test_variable value --flag activate send yes\n' },
  },
  {
    name: 'a file written in the work directory is read back',
    source: CLOUDOS_README,
    command: "echo 'test' > new_file.txt && cat new_file.txt",
    stdout: 'test\n',
    files: { 'new_file.txt': 'test\n' },
  },
  {
    name: 'printf with parameters prints each word in brackets',
    source: CLOUDOS,
    command: 'printf "[%s]"',
    params: [{ name: 'a', textValue: '1' }],
    stdout: '[--a][1]',
  },
  {
    name: 'a python one-liner gets the parameters as its arguments',
    source: CLOUDOS,
    command: "python3 -c 'import sys; print(sys.argv[1:])'",
    params: [{ name: 'n', textValue: '2' }],
    stdout: "['--n', '2']\n",
  },
  {
    name: "the command's own $1 is empty when the parameters are appended",
    source: CLOUDOS,
    command: 'echo "first=[$1] count=$#"',
    params: [{ name: 'x', textValue: '1' }],
    stdout: 'first=[] count=0 --x 1\n',
  },
  {
    name: 'an option parser that ends in echo sees no "$@": the parameters go to echo',
    source: 'argument parsing loop of wrapper scripts (while/case/shift)',
    command: lines(
      'while [ $# -gt 0 ]; do',
      '  case "$1" in',
      '    --sample) sample=$2; shift 2 ;;',
      '    --threads) threads=$2; shift 2 ;;',
      '    *) shift ;;',
      '  esac',
      'done',
      'echo "sample=${sample:-none} threads=${threads:-1}"',
    ),
    params: [
      { name: 'sample', textValue: 'S1' },
      { name: 'threads', textValue: '4' },
    ],
    stdout: 'sample=none threads=1 --sample S1 --threads 4\n',
  },
  {
    name: 'main "$@" gets the parameters appended',
    source: 'the main "$@" idiom of shell scripts',
    command: lines('main() {', '  echo "main got $# args: $*"', '}', 'main "$@"'),
    params: [{ name: 'k', textValue: 'v' }],
    stdout: 'main got 2 args: --k v\n',
  },
  {
    name: 'head -n from a parameter with the prefix -',
    source: CLOUDOS,
    command: "printf '%s\\n' a b c d | head",
    params: [{ prefix: '-', name: 'n', textValue: '2' }],
    stdout: 'a\nb\n',
  },
  {
    name: 'sort -k from a parameter',
    source: CLOUDOS,
    command: "printf 'b 2\\na 3\\nc 1\\n' | sort",
    params: [{ prefix: '-', name: 'k', textValue: '2,2n' }],
    stdout: 'c 1\nb 2\na 3\n',
  },
  {
    name: 'cut -f from a parameter',
    source: CLOUDOS,
    command: "printf 'a\\tb\\tc\\n' | cut",
    params: [{ prefix: '-', name: 'f', textValue: '2' }],
    stdout: 'b\n',
  },
  {
    name: 'a value with shell syntax reaches the command as one word, never run',
    source: CLOUDOS,
    command: "printf '<%s>\\n'",
    params: [{ name: 'msg', textValue: 'hello world; $(id) `id` "q" * $HOME' }],
    stdout: '<--msg>\n<hello world; $(id) `id` "q" * $HOME>\n',
  },
  {
    name: 'RUNYARD_PARAM_<NAME> variables hold the values',
    source: 'Runyard bash jobs (docs/bash-jobs.md)',
    command: 'echo "sample=$RUNYARD_PARAM_SAMPLE_ID reads=$RUNYARD_PARAM_READS"; true',
    params: [
      { name: 'sample-id', textValue: 'S7' },
      { name: 'reads', textValue: 'S7_R1.fastq.gz' },
    ],
    stdout: 'sample=S7 reads=S7_R1.fastq.gz\n',
  },
  {
    name: 'a function called last gets the parameters appended',
    source: 'logging helpers of pipeline scripts',
    command: lines('log() { printf "[log] %s\\n" "$*"; }', 'log starting'),
    params: [{ name: 'level', textValue: 'debug' }],
    stdout: '[log] starting --level debug\n',
  },
  {
    name: 'a chain with && gets the parameters on its last command',
    source: CLOUDOS_README,
    command: 'mkdir -p results && echo created',
    params: [{ name: 'outdir', textValue: 'results' }],
    stdout: 'created --outdir results\n',
  },
  {
    name: 'set -x traces the command with its appended parameters',
    source: 'debugging a job with set -x',
    command: 'set -x; echo traced',
    params: [{ name: 'a', textValue: '1' }],
    // The command runs inside eval, one level of indirection down: xtrace repeats PS4's first character (docs/bash-jobs.md).
    stdout: '++ echo traced --a 1\ntraced --a 1\n',
  },
  {
    name: 'a command that uses extglob after shopt -s extglob gets its parameters appended',
    source: 'removing intermediate files with an extglob pattern',
    command: lines('shopt -s extglob', 'mkdir -p aln && cd aln', 'touch S1.bam S1.bam.bai S1.tmp', 'rm -- !(*.bam|*.bai)', 'echo kept: *'),
    params: [{ name: 'sample', textValue: 'S1' }],
    stdout: 'kept: S1.bam S1.bam.bai --sample S1\n',
  },
  {
    name: 'UTF-8 text and a UTF-8 parameter pass through',
    source: CLOUDOS,
    command: "printf '%s\\n' 'héllo wörld ✓'",
    params: [{ name: 'name', textValue: 'Zoë' }],
    stdout: 'héllo wörld ✓\n--name\nZoë\n',
  },
  {
    name: 'a parameter value with a newline stays one argument',
    source: CLOUDOS,
    command: "printf '<%s>\\n'",
    params: [{ name: 'lines', textValue: 'line 1\nline 2' }],
    stdout: '<--lines>\n<line 1\nline 2>\n',
  },
  {
    name: 'a helper file written in the work directory is sourced; its function gets the parameters appended',
    source: 'shared shell libraries sourced by job scripts',
    command: lines('printf \'greet() { echo "hi $1 ($#)"; }\\n\' > lib.sh', '. ./lib.sh', 'greet you'),
    params: [{ name: 'a', textValue: '1' }],
    stdout: 'hi you (3)\n',
  },

  // Commands that cannot take appended parameters: the parameters are their "$@".
  {
    name: 'a for loop over "$@" (ends in done) prints each parameter',
    source: SHELL,
    command: 'for a in "$@"; do echo "<$a>"; done',
    params: [{ name: 'name', textValue: 'world' }],
    stdout: '<--name>\n<world>\n',
    positional: true,
  },
  {
    name: 'an if that ends in fi sees the parameters as $#, $*',
    source: SHELL,
    command: 'if [ "$#" -gt 0 ]; then echo "got $# args: $*"; else echo none; fi',
    params: [{ name: 'sample', textValue: 'S1' }],
    stdout: 'got 2 args: --sample S1\n',
    positional: true,
  },
  {
    name: 'a case that ends in esac reads $1 and $2',
    source: SHELL,
    command: lines('case "$1" in', '  --mode) echo "mode is $2" ;;', '  *) echo "no mode" ;;', 'esac'),
    params: [{ name: 'mode', textValue: 'fast' }],
    stdout: 'mode is fast\n',
    positional: true,
  },
  {
    name: 'getopts parses the parameters of a loop that ends in done',
    source: 'getopts option parsing',
    command: lines(
      'while getopts "n:v" opt; do',
      '  case $opt in',
      '    n) echo "n=$OPTARG" ;;',
      '    v) echo verbose ;;',
      '  esac',
      'done',
    ),
    params: [{ prefix: '-', name: 'n', textValue: '3' }],
    stdout: 'n=3\n',
    positional: true,
  },
  {
    name: 'a shift loop that ends in done reads option and value pairs',
    source: 'argument parsing loop of wrapper scripts (while/shift)',
    command: lines('while [ $# -gt 0 ]; do', '  echo "option $1 = $2"', '  shift 2', 'done'),
    params: [
      { name: 'sample', textValue: 'S1' },
      { name: 'threads', textValue: '4' },
    ],
    stdout: 'option --sample = S1\noption --threads = 4\n',
    positional: true,
  },
  {
    name: 'a group that ends in } reads $1 and $2',
    source: SHELL,
    command: '{ echo "first: $1"; echo "second: $2"; }',
    params: [{ name: 'k', textValue: 'v' }],
    stdout: 'first: --k\nsecond: v\n',
    positional: true,
  },
  {
    name: 'a subshell that ends in ) sees the parameters',
    source: SHELL,
    command: '( echo "in a subshell: $*" )',
    params: [{ name: 'k', textValue: 'v' }],
    stdout: 'in a subshell: --k v\n',
    positional: true,
  },
  {
    name: 'a command that ends in ; counts the parameters',
    source: SHELL,
    command: 'echo "n=$#";',
    params: [{ name: 'a', textValue: '1' }],
    stdout: 'n=2\n',
    positional: true,
  },
  {
    name: 'a command that ends in a comment sees the parameters',
    source: SHELL,
    command: 'echo "args: $*" # print them',
    params: [{ name: 'a', textValue: '1' }],
    stdout: 'args: --a 1\n',
    positional: true,
  },
  {
    name: 'a here-document that ends the command takes "$@" to python',
    source: 'python scripts inlined with a here-document',
    command: lines('python3 - "$@" <<\'PY\'', 'import sys', 'print(sys.argv[1:])', 'PY'),
    params: [{ name: 'n', textValue: '2' }],
    stdout: "['--n', '2']\n",
    positional: true,
  },
  {
    name: 'a here-document expands $* and RUNYARD_PARAM_<NAME>',
    source: 'Runyard bash jobs (docs/bash-jobs.md)',
    command: lines('cat <<EOF', 'sample: $RUNYARD_PARAM_SAMPLE', 'args: $*', 'EOF'),
    params: [{ name: 'sample', textValue: 'S2' }],
    stdout: 'sample: S2\nargs: --sample S2\n',
    positional: true,
  },
  {
    name: 'without parameters "$@" is empty and a for loop over it prints nothing',
    source: SHELL,
    command: lines('echo "args: $#"', 'for a in "$@"; do echo "<$a>"; done'),
    stdout: 'args: 0\n',
  },
  {
    name: 'without parameters printf \'%s\\n\' "$@" prints one empty line',
    source: SHELL,
    command: 'printf \'%s\\n\' "$@"',
    stdout: '\n',
  },

  // Loops and conditionals.
  {
    name: 'a for loop over a list',
    source: SHELL,
    command: 'for i in 1 2 3; do echo "line $i"; done',
    stdout: 'line 1\nline 2\nline 3\n',
  },
  {
    name: 'a C-style for loop',
    source: SHELL,
    command: 'for ((i = 0; i < 3; i++)); do printf \'%d \' "$i"; done; echo',
    stdout: '0 1 2 \n',
  },
  {
    name: 'a while loop with a counter',
    source: SHELL,
    command: lines('i=0', 'while [ "$i" -lt 3 ]; do', '  echo "i=$i"', '  i=$((i + 1))', 'done'),
    stdout: 'i=0\ni=1\ni=2\n',
  },
  {
    name: 'an until loop',
    source: SHELL,
    command: 'n=3; until [ "$n" -eq 0 ]; do echo "countdown $n"; n=$((n - 1)); done',
    stdout: 'countdown 3\ncountdown 2\ncountdown 1\n',
  },
  {
    name: 'continue and break in a loop',
    source: SHELL,
    command: 'for i in 1 2 3 4 5; do [ "$i" -eq 2 ] && continue; [ "$i" -eq 4 ] && break; echo "$i"; done',
    stdout: '1\n3\n',
  },
  {
    name: 'FizzBuzz with if/elif/else in a loop, joined with paste',
    source: SHELL,
    command:
      'for n in $(seq 1 15); do if ((n % 15 == 0)); then echo FizzBuzz; elif ((n % 3 == 0)); then echo Fizz; ' +
      "elif ((n % 5 == 0)); then echo Buzz; else echo $n; fi; done | paste -sd' '",
    stdout: '1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14 FizzBuzz\n',
  },
  {
    name: 'file tests in an if/elif/else that ends in fi',
    source: SHELL,
    command: lines(
      'touch a.txt; mkdir -p d',
      'for p in a.txt d missing; do',
      '  if [ -f "$p" ]; then echo "$p: file"',
      '  elif [ -d "$p" ]; then echo "$p: directory"',
      '  else echo "$p: none"',
      '  fi',
      'done',
    ),
    stdout: 'a.txt: file\nd: directory\nmissing: none\n',
  },
  {
    name: 'a regular expression match with BASH_REMATCH',
    source: 'paired-end read file names',
    command:
      'f=sample1_R2.fastq.gz; if [[ $f =~ ^(.+)_R([12])\\.fastq\\.gz$ ]]; then echo "${BASH_REMATCH[1]} read ${BASH_REMATCH[2]}"; fi',
    stdout: 'sample1 read 2\n',
  },
  {
    name: 'case/esac on file types in a loop',
    source: 'bioinformatics file dispatch',
    command: lines(
      'for f in a.fastq b.bam c.vcf.gz d.txt; do',
      '  case "$f" in',
      '    *.fastq | *.fq) echo "$f: reads" ;;',
      '    *.bam) echo "$f: alignments" ;;',
      '    *.vcf.gz) echo "$f: variants" ;;',
      '    *) echo "$f: other" ;;',
      '  esac',
      'done',
    ),
    stdout: 'a.fastq: reads\nb.bam: alignments\nc.vcf.gz: variants\nd.txt: other\n',
  },

  // Functions.
  {
    name: 'a function called twice',
    source: SHELL,
    command: 'greet() { echo "Hello, $1!"; }; greet world; greet Runyard',
    stdout: 'Hello, world!\nHello, Runyard!\n',
  },
  {
    name: 'a function with a local variable and a return code',
    source: SHELL,
    command: 'double() { local x=$1; return $((x * 2)); }; double 3; echo "returned $?"',
    stdout: 'returned 6\n',
  },
  {
    name: 'a recursive function',
    source: SHELL,
    command: 'fact() { if [ "$1" -le 1 ]; then echo 1; else echo $(($1 * $(fact $(($1 - 1))))); fi; }; fact 5',
    stdout: '120\n',
  },

  // Here-documents and here-strings.
  {
    name: 'a here-document expands variables and arithmetic',
    source: SHELL,
    command: lines('name=world', 'cat <<EOF', 'Hello, $name', 'Sum: $((2 + 3))', 'EOF'),
    stdout: 'Hello, world\nSum: 5\n',
  },
  {
    name: 'a here-document with a quoted delimiter is literal',
    source: SHELL,
    command: lines("cat <<'EOF'", '$HOME and $(date) stay as written', 'EOF'),
    stdout: '$HOME and $(date) stay as written\n',
  },
  {
    name: 'a here-document with <<- drops leading tabs',
    source: SHELL,
    command: lines('cat <<-EOF', '\tindented', '\t\ttwice', '\tEOF'),
    stdout: 'indented\ntwice\n',
  },
  {
    name: 'versions.yml written with a here-document and read back',
    source: NF_CORE,
    command: lines(
      'tool() { echo "tool 1.17 (using htslib 1.17)"; }',
      'cat <<-END_VERSIONS > versions.yml',
      '\t"NFCORE_RNASEQ:SAMTOOLS_SORT":',
      "\t    samtools: $(echo $(tool --version 2>&1) | sed 's/^tool //; s/ (.*$//')",
      '\tEND_VERSIONS',
      'cat versions.yml',
    ),
    stdout: '"NFCORE_RNASEQ:SAMTOOLS_SORT":\n    samtools: 1.17\n',
    files: { 'versions.yml': '"NFCORE_RNASEQ:SAMTOOLS_SORT":\n    samtools: 1.17\n' },
  },
  {
    name: 'a here-string into tr',
    source: SHELL,
    command: 'tr a-z A-Z <<< "hello world"',
    stdout: 'HELLO WORLD\n',
  },
  {
    name: 'read splits a here-string into variables',
    source: SHELL,
    command: 'read -r a b c <<< "1 2 3"; echo "$c $b $a"',
    stdout: '3 2 1\n',
  },
  {
    name: 'IFS and read -a split a here-string into an array',
    source: SHELL,
    command: 'IFS=: read -ra parts <<< "a:b:c"; echo "${#parts[@]} ${parts[2]}"',
    stdout: '3 c\n',
  },
  {
    name: 'a read loop over a samplesheet in a here-document',
    source: 'nf-core samplesheet (sample,fastq_1)',
    command: lines(
      'while IFS=, read -r sample fastq; do',
      '  echo "$sample -> $fastq"',
      'done <<EOF',
      'S1,S1_R1.fastq.gz',
      'S2,S2_R1.fastq.gz',
      'EOF',
    ),
    stdout: 'S1 -> S1_R1.fastq.gz\nS2 -> S2_R1.fastq.gz\n',
  },
  {
    name: 'a python script in a here-document',
    source: 'python scripts inlined with a here-document',
    command: lines("python3 - <<'PY'", 'total = sum(x * x for x in range(4))', 'print("sum of squares:", total)', 'PY'),
    stdout: 'sum of squares: 14\n',
  },

  // Multi-line scripts, errors and exit codes.
  {
    name: 'a multi-line script with comments and blank lines',
    source: 'multi-line --command of a bash job',
    command: lines(
      '# prepare the output folder',
      'mkdir -p out',
      '',
      'for s in S1 S2; do',
      '  echo "$s" > "out/$s.txt"   # one file per sample',
      'done',
      '',
      'ls out | wc -l',
    ),
    stdout: '2\n',
    files: { 'out/S1.txt': 'S1\n', 'out/S2.txt': 'S2\n' },
  },
  {
    name: 'set -e stops at a failing command with its exit code',
    source: NF_CORE,
    command: lines('set -e', 'echo before', 'ls /nonexistent-runyard-dir 2>/dev/null', 'echo after'),
    stdout: 'before\n',
    exitCode: 2,
  },
  {
    name: 'set -e does not stop at a condition or a || list',
    source: SHELL,
    command: lines('set -e', 'if false; then echo never; fi', 'false || echo recovered', 'false && echo never', 'echo end'),
    stdout: 'recovered\nend\n',
  },
  {
    name: 'set -euo pipefail stops at a failing pipe stage',
    source: 'bash strict mode (set -euo pipefail), as in WDL and nf-core scripts',
    command: lines('set -euo pipefail', 'echo start', "printf 'x\\n' | grep nomatch | sort", 'echo never'),
    stdout: 'start\n',
    exitCode: 1,
  },
  {
    name: "without pipefail a pipe's status is its last stage's; PIPESTATUS has each",
    source: SHELL,
    command: lines("printf 'x\\n' | grep nomatch | sort", 'echo "status=$? stages=${PIPESTATUS[*]}"'),
    stdout: 'status=0 stages=0 1 0\n',
  },
  {
    name: 'set -u: a default for an unset variable, an error caught in a subshell',
    source: SHELL,
    command: lines('set -u', 'echo "${UNSET_VAR:-default}"', '( echo "$UNSET_VAR" ) 2>/dev/null || echo "unset variable caught"'),
    stdout: 'default\nunset variable caught\n',
  },
  {
    name: "a missing program exits 127, bash's message naming the command's own line",
    source: SHELL,
    command: lines('echo start', 'no_such_command_runyard'),
    stdout: 'start\nrunyard-job: line 2: no_such_command_runyard: command not found\n',
    exitCode: 127,
  },
  {
    name: "$LINENO counts the command's own lines",
    source: SHELL,
    command: lines('echo first', 'echo "this is line $LINENO"'),
    stdout: 'first\nthis is line 2\n',
  },
  {
    name: 'a command that reads stdin reads nothing',
    source: SHELL,
    command: 'wc -c',
    stdout: '0\n',
  },
  {
    name: 'exit N ends the job with N',
    source: SHELL,
    command: 'echo "failing on purpose"; exit 7',
    stdout: 'failing on purpose\n',
    exitCode: 7,
  },
  {
    name: 'exit in a subshell ends only the subshell',
    source: SHELL,
    command: '(exit 5); echo "subshell exit: $?"',
    stdout: 'subshell exit: 5\n',
  },
  {
    name: 'trap ... EXIT runs at the end',
    source: 'cleanup traps of shell scripts',
    command: "trap 'echo cleanup' EXIT; echo working",
    stdout: 'working\ncleanup\n',
  },
  {
    name: 'trap ... EXIT sees the exit code of exit N, which stays the exit code',
    source: 'cleanup traps of shell scripts',
    command: lines('trap \'echo "cleanup (exit $?)"\' EXIT', 'echo working', 'exit 4'),
    stdout: 'working\ncleanup (exit 4)\n',
    exitCode: 4,
  },
  {
    name: 'trap ... EXIT runs when set -e stops the script',
    source: 'cleanup traps of shell scripts',
    command: lines('set -e', "trap 'echo removing tmp' EXIT", 'echo step1', 'false', 'echo step2'),
    stdout: 'step1\nremoving tmp\n',
    exitCode: 1,
  },

  // Pipes, subshells, substitution, arithmetic, arrays, expansions.
  {
    name: 'sort | uniq -c | sort -rn | head -1 finds the most frequent line',
    source: SHELL,
    command: "printf '%s\\n' banana apple cherry apple | sort | uniq -c | sort -rn | head -1",
    stdout: '      2 apple\n',
  },
  {
    name: 'a subshell keeps its variables to itself',
    source: SHELL,
    command: 'x=outer; (x=inner; echo "in: $x"); echo "out: $x"',
    stdout: 'in: inner\nout: outer\n',
  },
  {
    name: 'cd in a subshell leaves the work directory as it was',
    source: SHELL,
    command: 'mkdir -p sub && (cd sub && basename "$PWD"); basename "$PWD"',
    stdout: 'sub\nwork\n',
  },
  {
    name: 'command substitution, nested',
    source: SHELL,
    command: 'n=$(printf \'a\\nb\\nc\\n\' | wc -l); echo "lines: $n, nested: $(echo "$(echo inner)")"',
    stdout: 'lines: 3, nested: inner\n',
  },
  {
    name: 'arithmetic expansion and (( ))',
    source: SHELL,
    command: 'a=7 b=3; echo $((a + b)) $((a * b)) $((a / b)) $((a % b)) $((a ** 2)); ((a > b)) && echo "a is larger"',
    stdout: '10 21 2 1 49\na is larger\n',
  },
  {
    name: 'an indexed array with a quoted element',
    source: SHELL,
    command: 'samples=(S1 S2 "S 3"); echo "${#samples[@]} ${samples[1]}"; for s in "${samples[@]}"; do echo "[$s]"; done',
    stdout: '3 S2\n[S1]\n[S2]\n[S 3]\n',
  },
  {
    name: 'an associative array, its keys sorted',
    source: SHELL,
    command: 'declare -A size=([b]=2 [a]=1 [c]=3); for k in $(printf \'%s\\n\' "${!size[@]}" | sort); do echo "$k=${size[$k]}"; done',
    stdout: 'a=1\nb=2\nc=3\n',
  },
  {
    name: 'mapfile from a process substitution',
    source: SHELL,
    command: 'mapfile -t rows < <(printf \'x\\ny\\nz\\n\'); echo "${#rows[@]}: ${rows[1]}"',
    stdout: '3: y\n',
  },
  {
    name: 'parameter expansion: defaults, suffix and prefix removal, length, substitution',
    source: 'file name handling of pipeline scripts',
    command: 'f=sample_R1.fastq.gz; echo "${f%%.*}|${f%.*}|${f#*_}|${#f}|${f/R1/R2}|${unset_var:-d}"',
    stdout: 'sample_R1|sample_R1.fastq|R1.fastq.gz|18|sample_R2.fastq.gz|d\n',
  },
  {
    name: 'parameter expansion: case, substrings, := and :+',
    source: SHELL,
    command: 'x=Hello; echo "${x^^} ${x,,} ${x:1:3} ${y:=assigned} $y ${x:+set}${z:+unset}"',
    stdout: 'HELLO hello ell assigned assigned set\n',
  },
  {
    name: 'brace expansion: lists, ranges, zero-padded',
    source: SHELL,
    command: 'echo file_{1..3}.txt {a,b}{x,y} {01..03}',
    stdout: 'file_1.txt file_2.txt file_3.txt ax ay bx by 01 02 03\n',
  },
  {
    name: 'printf formats: padding, precision, zeros, hex',
    source: SHELL,
    command: "printf '%-5s|%5.2f|%03d|%x\\n' ab 3.14159 7 255",
    stdout: 'ab   | 3.14|007|ff\n',
  },
  {
    name: 'printf -v into a variable',
    source: SHELL,
    command: 'printf -v padded \'%05d\' 42; echo "id-$padded"',
    stdout: 'id-00042\n',
  },
  {
    name: 'process substitution into diff',
    source: SHELL,
    command: "diff <(printf 'a\\nb\\n') <(printf 'a\\nb\\n') && echo same",
    stdout: 'same\n',
  },

  // Redirections and files of the work directory.
  {
    name: 'lines appended with >> and read back',
    source: SHELL,
    command: 'for i in 1 2 3; do echo "row $i" >> log.txt; done; cat log.txt',
    stdout: 'row 1\nrow 2\nrow 3\n',
    files: { 'log.txt': 'row 1\nrow 2\nrow 3\n' },
  },
  {
    name: 'stderr joined to stdout with 2>&1 into a pipe',
    source: SHELL,
    command: '{ echo out; echo err >&2; } 2>&1 | sort',
    stdout: 'err\nout\n',
  },
  {
    name: 'tee writes a copy',
    source: SHELL,
    command: 'echo copied | tee copy.txt > /dev/null; cat copy.txt',
    stdout: 'copied\n',
    files: { 'copy.txt': 'copied\n' },
  },
  {
    name: 'gzip and zcat',
    source: NF_CORE,
    command: "printf '@r1\\nACGT\\n+\\nIIII\\n' | gzip -c > reads.fq.gz; zcat reads.fq.gz | awk 'NR % 4 == 2' | wc -c",
    stdout: '5\n',
  },

  // Text tools.
  {
    name: 'awk sums a column of a TSV file written in the work directory',
    source: 'count tables (gene, count)',
    command:
      "printf 'gene\\tcount\\nA\\t10\\nB\\t32\\nC\\t5\\n' > counts.tsv; awk -F'\\t' 'NR > 1 { s += $2 } END { print \"total\", s }' counts.tsv",
    stdout: 'total 47\n',
    files: { 'counts.tsv': 'gene\tcount\nA\t10\nB\t32\nC\t5\n' },
  },
  {
    name: 'awk prints its ARGV: the parameters appended',
    source: CLOUDOS,
    command: "awk 'BEGIN { for (i = 1; i < ARGC; i++) print ARGV[i] }'",
    params: [{ name: 'min', textValue: '5' }],
    stdout: '--min\n5\n',
  },
  {
    name: 'awk checks a samplesheet header',
    source: 'nf-core check_samplesheet',
    command: lines(
      "printf 'sample,fastq_1,fastq_2\\nS1,a_1.fq.gz,a_2.fq.gz\\n' > samplesheet.csv",
      'awk -F, \'NR == 1 && $0 != "sample,fastq_1,fastq_2" { print "bad header"; exit 1 } NR > 1 { n++ } END { print n, "samples" }\' samplesheet.csv',
    ),
    stdout: '1 samples\n',
  },
  {
    name: 'sed strips a read suffix, and prints one line',
    source: SHELL,
    command: "echo sample_R1.fastq.gz | sed -E 's/_R[12]\\.fastq\\.gz$//'; printf 'a\\nb\\nc\\n' | sed -n '2p'",
    stdout: 'sample\nb\n',
  },
  {
    name: 'sort | uniq -c counted with awk',
    source: SHELL,
    command: "printf '%s\\n' c a b a c c | sort | uniq -c | awk '{ print $2 \": \" $1 }'",
    stdout: 'a: 2\nb: 1\nc: 3\n',
  },
  {
    name: 'cut and tr',
    source: SHELL,
    command: "echo 'chr1,100,200' | cut -d, -f2,3 | tr ',' '-'; echo Hello | tr '[:lower:]' '[:upper:]'",
    stdout: '100-200\nHELLO\n',
  },
  {
    name: 'wc counts words, and lines of a file',
    source: SHELL,
    command: "printf 'one two\\nthree\\n' > words.txt; wc -w < words.txt; wc -l < words.txt",
    stdout: '3\n2\n',
  },
  {
    name: 'grep -c counts matching lines',
    source: 'log checks',
    command: "printf 'ok\\nerror: x\\nok\\nerror: y\\n' | grep -c '^error'",
    stdout: '2\n',
  },
  {
    name: 'grep -c without a match prints 0 and exits 1',
    source: 'log checks',
    command: "printf 'ok\\n' | grep -c '^error'",
    stdout: '0\n',
    exitCode: 1,
  },
  {
    name: 'xargs -n1 and -I{}',
    source: SHELL,
    command: "printf '%s\\n' a b | xargs -n1 echo item; printf '%s\\n' x y | xargs -I{} echo '<{}>'",
    stdout: 'item a\nitem b\n<x>\n<y>\n',
  },
  {
    name: 'find in the work directory',
    source: SHELL,
    command: "mkdir -p out/a out/b; touch out/a/x.txt out/b/y.txt out/b/z.log; find out -name '*.txt' | sort; find out -type f | wc -l",
    stdout: 'out/a/x.txt\nout/b/y.txt\n3\n',
  },
  {
    name: 'mktemp: a file and a directory, removed after',
    source: SHELL,
    command: lines(
      't=$(mktemp); echo data > "$t"; cat "$t"; rm -f "$t"; [ -e "$t" ] || echo "file removed"',
      'd=$(mktemp -d -p "$PWD"); touch "$d/part"; ls "$d"; rm -r "$d"; [ -d "$d" ] || echo "directory removed"',
    ),
    stdout: 'data\nfile removed\npart\ndirectory removed\n',
  },
  {
    name: 'basename and dirname',
    source: 'file name handling of pipeline scripts',
    command: 'p=/data/project/sample_R1.fastq.gz; basename "$p"; basename "$p" .fastq.gz; dirname "$p"',
    stdout: 'sample_R1.fastq.gz\nsample_R1\n/data/project\n',
  },
  {
    name: 'seq and paste',
    source: SHELL,
    command: 'seq 1 5 | paste -sd,',
    stdout: '1,2,3,4,5\n',
  },
  {
    name: 'a python one-liner',
    source: SHELL,
    command: "python3 -c 'print(sum(range(10)))'",
    stdout: '45\n',
  },
  {
    name: 'python reads JSON from a pipe',
    source: SHELL,
    command: 'echo \'{"samples": ["S1", "S2", "S3"]}\' | python3 -c \'import json, sys; print(len(json.load(sys.stdin)["samples"]))\'',
    stdout: '3\n',
  },

  // The job's environment.
  {
    name: 'the environment: a job id, HOME is the work directory, a results directory',
    source: 'Runyard bash jobs (docs/bash-jobs.md)',
    command: lines(
      'echo "job id of ${#RUNYARD_JOB_ID} characters"',
      '[ "$HOME" = "$PWD" ] && echo "HOME is the work directory"',
      'echo result > "$RUNYARD_RESULTS_DIR/out.txt" && cat "$RUNYARD_RESULTS_DIR/out.txt"',
    ),
    stdout: 'job id of 24 characters\nHOME is the work directory\nresult\n',
  },
  {
    name: '$0 is runyard-job',
    source: 'Runyard bash jobs (docs/bash-jobs.md)',
    command: 'echo "$0"',
    stdout: 'runyard-job\n',
  },
];
