/**
 * A WDL workflow of two calls: greet writes a File (greeting.txt), a stamp.txt in its own working
 * directory (how often it ran, seen from its run directory, wherever the engine runs the call) and
 * counts its runs in $HOME/greet-runs (HOME is the job's work directory where the calls run on the
 * host); count reads that File and writes n.txt, failing with code 3 when the input mode is
 * "strict" and $HOME/allow-count does not exist.
 */
export const HELLO_WDL = `version 1.0

task greet {
  input {
    String name
    Int times
  }
  command <<<
    # "slow" keeps the call running until the job is aborted (the abort tests).
    if [ "~{name}" = slow ]; then sleep 600; fi
    for i in $(seq ~{times}); do echo "hello ~{name}"; done > greeting.txt
    echo run >> "$HOME/greet-runs"
    date +%s%N > stamp.txt
    echo "greet says hi on stderr" >&2
  >>>
  output {
    File greeting = "greeting.txt"
  }
}

task count {
  input {
    File f
    String mode
  }
  command <<<
    if [ "~{mode}" = strict ] && [ ! -e "$HOME/allow-count" ]; then echo "count is not allowed yet" >&2; exit 3; fi
    wc -l < ~{f} > n.txt
  >>>
  output {
    File n = "n.txt"
  }
}

workflow hello {
  input {
    String name
    Int times = 2
    String mode = "lenient"
  }
  call greet { input: name = name, times = times }
  call count { input: f = greet.greeting, mode = mode }
  output {
    File greeting = greet.greeting
    File lines = count.n
  }
}
`;

/**
 * Outputs of every kind a workflow returns: Int, Float, String, Boolean, Array[String] (a scatter's
 * gathered output), Array[Int], Pair, an optional that is null (its call did not run), a File, a Map
 * a task read (read_map). (No Map literal and no struct: toil 5's WDL compiler refuses both.)
 */
export const TYPED_OUTPUTS_WDL = `version 1.0

task measure {
  input {
    String word
  }
  command <<<
    printf '%s' "~{word}" | wc -c
    echo "measured ~{word}" > "r-~{word}.txt"
  >>>
  output {
    Int n = read_int(stdout())
    String label = "word-~{word}"
    File report = "r-~{word}.txt"
  }
}

task tabulate {
  command <<<
    printf 'a\t1\nbb\t2\n'
  >>>
  output {
    Map[String, String] table = read_map(stdout())
  }
}

workflow typed {
  input {
    Array[String] words = ["a", "bb", "ccc"]
    Boolean extra = false
  }
  scatter (word in words) {
    call measure { input: word = word }
  }
  call measure as longest { input: word = "dddd" }
  call tabulate
  if (extra) {
    call measure as skipped { input: word = "never" }
  }
  output {
    Int longest_n = longest.n
    Array[String] labels = measure.label
    Array[Int] sizes = measure.n
    String name = "typed"
    Float ratio = 0.5
    Boolean flag = true
    Pair[String, Int] pair = ("p", 7)
    Int? maybe = skipped.n
    File report = longest.report
    Map[String, String] table = tabulate.table
  }
}
`;
