# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_bob_global_optspecs
    string join \n home= now= format= json h/help V/version
end

function __fish_bob_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_bob_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_bob_using_subcommand
    set -l cmd (__fish_bob_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c bob -n "__fish_bob_needs_command" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_needs_command" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_needs_command" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_needs_command" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_needs_command" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_needs_command" -f -a "init" -d 'Create the home directory and its layout'
complete -c bob -n "__fish_bob_needs_command" -f -a "state" -d 'Show or replace a session\'s checkpoint (revisioned)'
complete -c bob -n "__fish_bob_needs_command" -f -a "caps" -d 'List, request, grant or revoke a session\'s capabilities'
complete -c bob -n "__fish_bob_needs_command" -f -a "notes" -d 'Extract NOTES_JSON patches from assistant text, or apply a patch to a checkpoint'
complete -c bob -n "__fish_bob_needs_command" -f -a "condense" -d 'Deterministically condense a message list to fit the context caps'
complete -c bob -n "__fish_bob_needs_command" -f -a "sanitize" -d 'Strip scaffold blocks, markers and chain-of-thought from model output'
complete -c bob -n "__fish_bob_needs_command" -f -a "trace" -d 'Emit, query, follow and summarise trace events'
complete -c bob -n "__fish_bob_needs_command" -f -a "ledger" -d 'Show, verify or repair hash-chained logs (approval ledger, audit log)'
complete -c bob -n "__fish_bob_needs_command" -f -a "schema" -d 'Print the JSON Schema of a contract type'
complete -c bob -n "__fish_bob_needs_command" -f -a "tool" -d 'List, describe and run tools under the sandbox and policy'
complete -c bob -n "__fish_bob_needs_command" -f -a "memory" -d 'Short-term and long-term memory, candidates and approvals'
complete -c bob -n "__fish_bob_needs_command" -f -a "chat" -d 'One call to the chat backend: messages JSON in, reply out'
complete -c bob -n "__fish_bob_needs_command" -f -a "turn" -d 'Run one turn through the role pipeline'
complete -c bob -n "__fish_bob_needs_command" -f -a "context" -d 'Build the labelled role inputs for a session and role'
complete -c bob -n "__fish_bob_needs_command" -f -a "schedule" -d 'Cron-friendly jobs that run turns'
complete -c bob -n "__fish_bob_needs_command" -f -a "generate" -d 'Regenerate man pages and shell completions'
complete -c bob -n "__fish_bob_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand init" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand init" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand init" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand init" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand init" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand init" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand condense" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand condense" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand condense" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand condense" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand condense" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "verify" -d 'Verify a hash-chained log and name the first bad line. With no FILE, verifies the approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is broken'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines [default: the approval ledger]'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l tail -d 'Only the last N records' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Verify a hash-chained log and name the first bad line. With no FILE, verifies the approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is broken'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines [default: the approval ledger]'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schema" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schema" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schema" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand schema" -l list -d 'List the available names'
complete -c bob -n "__fish_bob_using_subcommand schema" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schema" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand schema" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand chat" -l input -d 'Read the request from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand chat" -l role -d 'The pipeline role making the call (replay scripts match on it)' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l route -d 'Which model configuration to use (mtg: BOB_MTG_* when BOB_ROUTE_MTG_REMOTE=true)' -r -f -a "chat\t''
mtg\t''"
complete -c bob -n "__fish_bob_using_subcommand chat" -l backend -d 'Backend: `openai` (HTTP, the default when configured) or `replay:FILE` (scripted replies from a JSON Lines file; see the replay format below) [env: BOB_BACKEND]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l base-url -d 'Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default: https://api.openai.com/v1]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l model -d 'Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l api-key-env -d 'Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then OPENAI_API_KEY]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l connect-timeout -d 'Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l timeout -d 'Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT; default: 120]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l max-retries -d 'Retries after the first attempt on 429, 5xx and connection errors [env: BOB_CHAT_MAX_RETRIES; default: 3]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand chat" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand chat" -l stream -d 'Stream the reply as JSON Lines of deltas'
complete -c bob -n "__fish_bob_using_subcommand chat" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand chat" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand chat" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand turn" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand turn" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand turn" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand turn" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand turn" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand context" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand context" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand context" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand context" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand context" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand generate" -l out -d 'Directory that receives man/ and completions/' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand generate" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''"
complete -c bob -n "__fish_bob_using_subcommand generate" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand generate" -s h -l help -d 'Print help'
complete -c bob -n "__fish_bob_using_subcommand generate" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "init" -d 'Create the home directory and its layout'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "state" -d 'Show or replace a session\'s checkpoint (revisioned)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "caps" -d 'List, request, grant or revoke a session\'s capabilities'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "notes" -d 'Extract NOTES_JSON patches from assistant text, or apply a patch to a checkpoint'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "condense" -d 'Deterministically condense a message list to fit the context caps'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "sanitize" -d 'Strip scaffold blocks, markers and chain-of-thought from model output'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "trace" -d 'Emit, query, follow and summarise trace events'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "ledger" -d 'Show, verify or repair hash-chained logs (approval ledger, audit log)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "schema" -d 'Print the JSON Schema of a contract type'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "tool" -d 'List, describe and run tools under the sandbox and policy'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "memory" -d 'Short-term and long-term memory, candidates and approvals'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "chat" -d 'One call to the chat backend: messages JSON in, reply out'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "turn" -d 'Run one turn through the role pipeline'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "context" -d 'Build the labelled role inputs for a session and role'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "schedule" -d 'Cron-friendly jobs that run turns'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "generate" -d 'Regenerate man pages and shell completions'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema tool memory chat turn context schedule generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from state" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from caps" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from trace" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "verify" -d 'Verify a hash-chained log and name the first bad line. With no FILE, verifies the approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is broken'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines [default: the approval ledger]'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "pending" -d 'Not implemented in this build yet'
