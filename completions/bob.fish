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
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
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
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand init" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand init" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand condense" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand condense" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand condense" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand condense" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand condense" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "verify" -d 'Verify a hash-chained log and name the first bad line. With no FILE, verifies the approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is broken'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines [default: the approval ledger]'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify show repair help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l tail -d 'Only the last N records' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Verify a hash-chained log and name the first bad line. With no FILE, verifies the approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is broken'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines [default: the approval ledger]'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schema" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schema" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schema" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schema" -l list -d 'List the available names'
complete -c bob -n "__fish_bob_using_subcommand schema" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schema" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "query" -d 'Ranked full-text query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "list" -d 'List short-term or long-term memory (seed 004 memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "import" -d 'Import markdown files (a file or a directory of *.md), or with --jsonl an export file; one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "export" -d 'Write every long-term record as JSON Lines'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "bench" -d 'Retrieval quality on a LongMemEval-format dataset: recall_any@{1,5,10}, NDCG@10'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote gc import export bench help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l input -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l session -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l run -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l status -r -f -a "pending\t''
approved\t''
rejected\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l user -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l edit -d 'JSON object of candidate fields to replace before storing (an "edit" decision)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l actor -d 'Who decided [default: $BOB_ACTOR, else $USER, else "human"]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l reason -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l actor -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s k -l k -d 'Number of hits' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l tags -d 'Only records carrying every one of these tags (comma-separated or repeated)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l user -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l scope -r -f -a "short_term\t''
long_term\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l limit -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l include-body -d 'Include record bodies'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l all-users -d 'Every user\'s entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -f -a "add" -d 'Write one entry (JSON on stdin: intent, resolution, open_questions<=3, tools_used, entities); at most 3072 bytes of content; the oldest beyond 200 per user is evicted'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -f -a "touch" -d 'Record an access: access_count+1, last_accessed, session added to sessions_seen'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -f -a "list" -d 'Live entries, newest first'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -f -a "gc" -d 'Delete entries older than 72 hours'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l user -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l dry-run
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l actor -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l user -d 'Memory user for records that name none' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l actor -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l jsonl -d 'PATH is a JSON Lines export (the bulk path)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l user -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l output -d 'Write to FILE (atomically) instead of stdout' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l dataset -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l detail -d 'Include per-question results'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "query" -d 'Ranked full-text query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "list" -d 'List short-term or long-term memory (seed 004 memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "import" -d 'Import markdown files (a file or a directory of *.md), or with --jsonl an export file; one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write every long-term record as JSON Lines'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "bench" -d 'Retrieval quality on a LongMemEval-format dataset: recall_any@{1,5,10}, NDCG@10'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand chat" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand chat" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand chat" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand chat" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand turn" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand turn" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand turn" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand turn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand turn" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand context" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand context" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand context" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand context" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from pending help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pending" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "pending" -d 'Not implemented in this build yet'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand generate" -l out -d 'Directory that receives man/ and completions/' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime]' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l now -d 'Pin the clock to this RFC3339 time (sets BOB_NOW) so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand generate" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand generate" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
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
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "query" -d 'Ranked full-text query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "list" -d 'List short-term or long-term memory (seed 004 memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "import" -d 'Import markdown files (a file or a directory of *.md), or with --jsonl an export file; one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "export" -d 'Write every long-term record as JSON Lines'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "bench" -d 'Retrieval quality on a LongMemEval-format dataset: recall_any@{1,5,10}, NDCG@10'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "pending" -d 'Not implemented in this build yet'
