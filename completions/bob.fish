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

complete -c bob -n "__fish_bob_needs_command" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_needs_command" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
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
complete -c bob -n "__fish_bob_needs_command" -f -a "ledger" -d 'Show, verify, anchor, rekey or repair hash-chained logs (approval ledger, audit log)'
complete -c bob -n "__fish_bob_needs_command" -f -a "schema" -d 'Print the JSON Schema of a contract type'
complete -c bob -n "__fish_bob_needs_command" -f -a "search" -d 'Run a SearchRequest: fetch, extract and stage web pages, files or search results'
complete -c bob -n "__fish_bob_needs_command" -f -a "tool" -d 'List, describe and run tools under the sandbox and policy'
complete -c bob -n "__fish_bob_needs_command" -f -a "memory" -d 'Short-term and long-term memory, candidates and approvals'
complete -c bob -n "__fish_bob_needs_command" -f -a "chat" -d 'One raw call to the chat backend (not a turn): messages JSON in, reply out'
complete -c bob -n "__fish_bob_needs_command" -f -a "turn" -d 'Run one turn through the role pipeline (`bob turn commit`: the pipeline\'s last stage)'
complete -c bob -n "__fish_bob_needs_command" -f -a "context" -d 'Build the labelled role inputs for a session and role'
complete -c bob -n "__fish_bob_needs_command" -f -a "schedule" -d 'Cron-friendly jobs that run turns'
complete -c bob -n "__fish_bob_needs_command" -f -a "mtg" -d 'Play Magic: The Gathering through the rules engine (state, actions, act, journal)'
complete -c bob -n "__fish_bob_needs_command" -f -a "secrets" -d 'Store, list and remove secrets (one-way: values are never shown)'
complete -c bob -n "__fish_bob_needs_command" -f -a "serve" -d 'Serve the HTTP API (runs queue, SSE events) and manage its tokens'
complete -c bob -n "__fish_bob_needs_command" -f -a "eval" -d 'Run the integrity suites (the Spectator test suite) against a backend and report'
complete -c bob -n "__fish_bob_needs_command" -f -a "runs" -d 'List and show run bundles (runs/<run_id>/)'
complete -c bob -n "__fish_bob_needs_command" -f -a "config" -d 'Show the effective settings and where each came from; set or unset one in config.toml'
complete -c bob -n "__fish_bob_needs_command" -f -a "completion" -d 'Print the completion script of a shell (bash, zsh or fish)'
complete -c bob -n "__fish_bob_needs_command" -f -a "db" -d 'The shared store\'s PostgreSQL database: status and schema migrations'
complete -c bob -n "__fish_bob_needs_command" -f -a "keys" -d 'Export or import this node\'s chain and secrets keys (for nodes sharing one database)'
complete -c bob -n "__fish_bob_needs_command" -f -a "generate" -d 'Regenerate man pages and shell completions'
complete -c bob -n "__fish_bob_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand init" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand init" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand init" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand init" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand init" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -f -a "show" -d 'Print the session\'s checkpoint JSON'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -f -a "set" -d 'Change the session\'s state by hand (a human act, audited); bumps the revision'
complete -c bob -n "__fish_bob_using_subcommand state; and not __fish_seen_subcommand_from show set help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l or-empty -d 'Print a fresh checkpoint (revision 0) for a session that has none yet'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l expect-revision -d 'Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l input -d 'Read the input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l replace -d 'Replace the whole state and the recent messages instead of merging (capabilities are still kept: they change only through `bob caps`)'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the session\'s checkpoint JSON'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "set" -d 'Change the session\'s state by hand (a human act, audited); bumps the revision'
complete -c bob -n "__fish_bob_using_subcommand state; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -f -a "list" -d 'Print {session_id, revision, granted, pending}'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -f -a "request" -d 'Ask for CAP: adds it to pending unless it is already granted'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -f -a "grant" -d 'Grant CAP (a human act): adds it to granted and removes it from pending'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -f -a "revoke" -d 'Revoke CAP: removes it from granted and from pending'
complete -c bob -n "__fish_bob_using_subcommand caps; and not __fish_seen_subcommand_from list request grant revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l or-empty -d 'Print empty lists for a session that has no checkpoint yet'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l expect-revision -d 'Fail with conflict (exit 5) unless the stored revision is N' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from request" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l expect-revision -d 'Fail with conflict (exit 5) unless the stored revision is N' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from grant" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l expect-revision -d 'Fail with conflict (exit 5) unless the stored revision is N' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from revoke" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "list" -d 'Print {session_id, revision, granted, pending}'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "request" -d 'Ask for CAP: adds it to pending unless it is already granted'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "grant" -d 'Grant CAP (a human act): adds it to granted and removes it from pending'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke CAP: removes it from granted and from pending'
complete -c bob -n "__fish_bob_using_subcommand caps; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -f -a "extract" -d 'Remove every NOTES_JSON block from assistant text and parse the patches'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -f -a "apply" -d 'Apply a NOTES patch to a session\'s checkpoint (bumps the revision)'
complete -c bob -n "__fish_bob_using_subcommand notes; and not __fish_seen_subcommand_from extract apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l session -d 'Trace malformed blocks to this session\'s trace log' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l input -d 'Read the input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from extract" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l session -d 'Session id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l actor -d 'Who wrote the patch' -r -f -a "model\t'The patch comes from a model: it may request, never grant, capabilities'
human\t'The patch comes from a human: grant_permission actions take effect'"
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l expect-revision -d 'Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l input -d 'Read the input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "extract" -d 'Remove every NOTES_JSON block from assistant text and parse the patches'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Apply a NOTES patch to a session\'s checkpoint (bumps the revision)'
complete -c bob -n "__fish_bob_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand condense" -l session -d 'Condense this session\'s checkpoint recent_messages in place' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l expect-revision -d 'With --session: fail with conflict (exit 5) unless the stored revision is N' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l input -d 'Read the messages from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand condense" -l per-message -d 'Cap on every message\'s content, in characters' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l total -d 'Cap on the sum of all message contents, in characters' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l tool-summary -d 'Cap on a tool result\'s summary excerpt' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l tool-error -d 'Cap on a tool result\'s error excerpt' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l tool-output -d 'Cap on a tool result\'s output excerpt' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand condense" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand condense" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand condense" -l force -d 'Condense now to half of --total (the condense_now action) instead of only when over it'
complete -c bob -n "__fish_bob_using_subcommand condense" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand condense" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand condense" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l input -d 'Read the text from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l raw -d 'Write only the resulting text (and a newline) instead of JSON'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l neutralize -d 'Neutralize instead: keep the text but rewrite anything that looks like a scaffold marker so it can no longer open or close a block (for data embedded in a prompt)'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand sanitize" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -f -a "emit" -d 'Append trace events {ts, kind, data} to a session\'s trace'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -f -a "query" -d 'Print the events that match, as JSON Lines (original bytes)'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -f -a "tail" -d 'Print the last N events of a session\'s trace, optionally following new ones'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -f -a "stats" -d 'Count events by kind, first/last ts and damaged lines'
complete -c bob -n "__fish_bob_using_subcommand trace; and not __fish_seen_subcommand_from emit query tail stats help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l session -d 'Session whose trace gets the events' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l kind -d 'Event kind ([a-z0-9_.]+)' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l data -d 'Event data, a JSON object [default: {}]' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l input -d 'Read JSON Lines events from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from emit" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l session -d 'Query this session\'s trace' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l file -d 'Query this trace file' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l kind -d 'Keep only events of this kind (repeatable: any of them)' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l since -d 'Keep only events at or after this time' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l until -d 'Keep only events before this time' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l limit -d 'Stop after N events' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l all -d 'Query every session\'s trace (in file name order)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l session -d 'Session whose trace to print' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l file -d 'Trace file to print' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -s n -l lines -d 'Number of events to print first' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -s f -l follow -d 'Keep printing events as they are appended (until interrupted)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from tail" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l session -d 'Only this session\'s trace [default: every session, one row each]' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l file -d 'Only this trace file' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from stats" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "emit" -d 'Append trace events {ts, kind, data} to a session\'s trace'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "query" -d 'Print the events that match, as JSON Lines (original bytes)'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "tail" -d 'Print the last N events of a session\'s trace, optionally following new ones'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Count events by kind, first/last ts and damaged lines'
complete -c bob -n "__fish_bob_using_subcommand trace; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "verify" -d 'Verify keyed hash-chained logs and name the first bad line of each: every link, the home\'s chain key, and each log\'s head in keys/manifest.json (a deleted tail, a deleted day file, a chain recomputed without the key, a missing or different key). With no FILE (or --all), verifies every chained log of the home: the approval ledger, every audit day file, and every file the manifest lists; with database.url set, every chain of the shared store too (postgres:memory_ledger, postgres:audit_events/AGENT). One report line per file; exits 5 (conflict) when any fails, and when any record cannot be checked with a key the home holds (unkeyed legacy records, records of an epoch whose key was lost) unless --allow-legacy'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "anchor" -d 'Print a signed statement of every chain\'s head: the manifest\'s heads and generation, a timestamp and the key\'s fingerprint, under the chain key\'s MAC. Keep it outside the home (e.g. cron it to another host); `bob ledger verify --anchor FILE` then finds a home restored from an older copy. With database.url set it also signs the head of every chain of the database (shared) and keeps the statement in the home (keys/shared_anchor.json), which `bob ledger verify --all` then checks the database against: a chain whose newest rows were deleted fails'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "rekey" -d 'Start a new key epoch (a human act, audited): needed when the chain key is missing or is not the key the manifest names, and for a rotation. The configured key file is used when it holds a key the manifest does not name, created when missing, replaced when it is the manifest\'s own key (a rotation). The previous key, when still at hand, is kept in keys/retired/ so its epoch stays verifiable; a lost key\'s epoch is reported as unverifiable. Every chained log is adopted as it stands now. With database.url set it rotates the key of the database\'s chains instead: a new key, sealed with the secrets key every node shares, and an epoch record signed by it at the end of every chain; every node signs with the new key from its next append, verifies every epoch, and the nodes\' key files stay as they are'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines, oldest first [default: the approval ledger, the shared store\'s when database.url is set]. Filters combine with AND; --limit applies after them'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and not __fish_seen_subcommand_from verify anchor rekey show repair help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l anchor -d 'Also check every log against an anchor statement kept from `bob ledger anchor`: a log that ends before the kept head or holds another record there fails (a rolled-back home); the anchor\'s own MAC must check' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l all -d 'Every chained log of the home (the default when no FILE is given)'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l allow-legacy -d 'Accept records no key of the home can check (unkeyed legacy links, records of a key epoch whose key was missing at `bob ledger rekey`); they are still reported, with a warning'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from anchor" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from rekey" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l kind -d 'Only records of this kind: approve, edit, reject (decisions with that outcome), decision (all three), import or gc' -r -f -a "approve\t''
edit\t''
reject\t''
decision\t''
import\t''
gc\t''"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l candidate -d 'Only records about this candidate id (`candidate_id`)' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l memory -d 'Only records about this memory id (`memory_id` of a decision, or listed in an import or gc batch)' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l user -d 'Only records of this memory user (`user`; a gc batch matches when it lists a record of that user)' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l actor -d 'Only records by this actor' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l since -d 'Only records with `ts` at or after this RFC3339 time' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l until -d 'Only records with `ts` before this RFC3339 time' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l limit -l tail -d 'Only the newest N matching records (still printed oldest first)' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from repair" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Verify keyed hash-chained logs and name the first bad line of each: every link, the home\'s chain key, and each log\'s head in keys/manifest.json (a deleted tail, a deleted day file, a chain recomputed without the key, a missing or different key). With no FILE (or --all), verifies every chained log of the home: the approval ledger, every audit day file, and every file the manifest lists; with database.url set, every chain of the shared store too (postgres:memory_ledger, postgres:audit_events/AGENT). One report line per file; exits 5 (conflict) when any fails, and when any record cannot be checked with a key the home holds (unkeyed legacy records, records of an epoch whose key was lost) unless --allow-legacy'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "anchor" -d 'Print a signed statement of every chain\'s head: the manifest\'s heads and generation, a timestamp and the key\'s fingerprint, under the chain key\'s MAC. Keep it outside the home (e.g. cron it to another host); `bob ledger verify --anchor FILE` then finds a home restored from an older copy. With database.url set it also signs the head of every chain of the database (shared) and keeps the statement in the home (keys/shared_anchor.json), which `bob ledger verify --all` then checks the database against: a chain whose newest rows were deleted fails'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "rekey" -d 'Start a new key epoch (a human act, audited): needed when the chain key is missing or is not the key the manifest names, and for a rotation. The configured key file is used when it holds a key the manifest does not name, created when missing, replaced when it is the manifest\'s own key (a rotation). The previous key, when still at hand, is kept in keys/retired/ so its epoch stays verifiable; a lost key\'s epoch is reported as unverifiable. Every chained log is adopted as it stands now. With database.url set it rotates the key of the database\'s chains instead: a new key, sealed with the secrets key every node shares, and an epoch record signed by it at the end of every chain; every node signs with the new key from its next append, verifies every epoch, and the nodes\' key files stay as they are'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines, oldest first [default: the approval ledger, the shared store\'s when database.url is set]. Filters combine with AND; --limit applies after them'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand ledger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schema" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schema" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schema" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schema" -l list -d 'List the available names'
complete -c bob -n "__fish_bob_using_subcommand schema" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schema" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand search" -l keep-days -d 'Keep staged fetches this many days [default: setting search.keep_days (BOB_STAGING_KEEP_DAYS, config.toml), else 7]' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l keep-count -d 'Keep at most this many staged fetches (the newest) [default: setting search.keep_count (BOB_STAGING_KEEP_COUNT, config.toml), else 1000]' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l input -d 'Read the SearchRequest from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand search" -l session -d 'Session whose granted capabilities apply' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l root -d 'Sandbox root for fetch_mode file' -r -F
complete -c bob -n "__fish_bob_using_subcommand search" -l grant -d 'Grant a capability (net, net:<domain>) for this search' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l timeout-ms -d 'Time budget of the whole search' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand search" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand search" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand search" -l gc -d 'Only apply the staging retention (no SearchRequest is read); prints {staging_dir, removed, kept}'
complete -c bob -n "__fish_bob_using_subcommand search" -l allow-loopback -d 'Let fetches reach loopback addresses'
complete -c bob -n "__fish_bob_using_subcommand search" -l allow-private -d 'Let fetches reach private and link-local addresses'
complete -c bob -n "__fish_bob_using_subcommand search" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand search" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "list" -d 'List the registered tools (JSON Lines: name, kind, mutating, aliases, description)'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "schema" -d 'Print a tool\'s input JSON Schema (aliases resolve to their tool)'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "run" -d 'Run tool calls read from stdin, in order; one response envelope per call on stdout'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "enable" -d 'Enable tools for a session (a human act), stored in sessions/<id>/tools.json'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "disable" -d 'Disable tools for a session'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "turbotime" -d 'Turn TURBOTIME on or off for a session and select its tools (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "confirm" -d 'Run a tool call a Chat-mode turn staged as requires_confirm (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "loop" -d 'Show a session\'s failure-loop state (the run lifecycle events)'
complete -c bob -n "__fish_bob_using_subcommand tool; and not __fish_seen_subcommand_from list schema run enable disable turbotime confirm loop help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -l session -d 'Also say which tools are enabled for this session' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from schema" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l input -d 'Read the calls from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l session -d 'Session whose enabled tools, granted capabilities and failure loop apply' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l root -d 'Sandbox root for fs and shell tools (repeatable; enables the sandbox)' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l enable -d 'Enable these tools for this invocation (the calling human\'s choice)' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l grant -d 'Grant a capability (net, net:<domain>) for this invocation' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l sandbox -d 'How shell.exec is confined: full (namespaces, new root, seccomp; refused where the kernel cannot provide it) or weak (Landlock and a process group only) [default: $BOB_SANDBOX, else full]' -r -f -a "full\t''
weak\t''"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l shell-rules -d 'Shell allow/deny rules file (JSON) replacing the built-in one' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l max-timeout-ms -d 'Clamp on any call\'s timeout_ms [default: $BOB_TOOL_MAX_TIMEOUT_MS, else 120000]' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l timeout-ms -d 'Default timeout_ms for calls that carry none' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l run-id -d 'run_id for calls that carry none [default: a new run_<uuid>]' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l agent-id -d 'agent_id for calls that carry none' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l as -d 'Output shape' -r -f -a "envelopes\t'Openclawssy response envelopes'
tool-messages\t'Spectator tool-role messages {"role":"tool","tool_call_id",…,"content":"<json>"}'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l enable-all -d 'Enable every registered tool for this invocation'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l allow-loopback -d 'Let http.get reach loopback addresses (127.0.0.0/8, ::1)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l allow-private -d 'Let http.get reach private and link-local addresses'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l require-sandbox -d 'Accepted for compatibility; the full sandbox is always required unless --sandbox weak'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l report-loop -d 'After the responses, print one more line {"failure_loop": …} with the loop state'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -l session -d 'Session to enable the tools for' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from enable" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -l session -d 'Session to disable the tools for' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from disable" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l session -d 'Session whose TURBOTIME to switch' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l select -d 'TURBOTIME tools to select (replaces the selection; only with `on`)' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from turbotime" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l session -d 'Session the staged call belongs to' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l root -d 'Sandbox root for fs and shell tools' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from confirm" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -l session -d 'Session whose failure loop to show' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from loop" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the registered tools (JSON Lines: name, kind, mutating, aliases, description)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "schema" -d 'Print a tool\'s input JSON Schema (aliases resolve to their tool)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run tool calls read from stdin, in order; one response envelope per call on stdout'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Enable tools for a session (a human act), stored in sessions/<id>/tools.json'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Disable tools for a session'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "turbotime" -d 'Turn TURBOTIME on or off for a session and select its tools (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "confirm" -d 'Run a tool call a Chat-mode turn staged as requires_confirm (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "loop" -d 'Show a session\'s failure-loop state (the run lifecycle events)'
complete -c bob -n "__fish_bob_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "query" -d 'Ranked query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "list" -d 'List short-term or long-term memory (JSON I/O memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "practice" -d 'Practice/learn consolidation (the Bob v0 runtime): propose pending candidates from what happened since the cutoff: tools that failed in two or more calls across the turns in turns.jsonl (at most 2), and p1\'s MTG lessons of every game journaled under mtg/ that started then and has ended. Never writes long-term memory: approve or reject what it proposes'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "import" -d 'Import memory records: markdown files or JSON Lines (JSON I/O records, `memory export` lines); one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "reindex" -d 'Embed long-term records with the configured embedder (memory.embeddings): every record, replacing the vectors of an earlier model, or with --missing only the queued ones (records with no vector of the configured model). A progress bar is drawn on stderr when it is a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "convert" -d 'Print the memory record a markdown file converts to (as `memory import` would store it: title, summary, facts, tags and front matter, token estimate), without storing it'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "export" -d 'Write every long-term record as JSON Lines, or with --index the tag index'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "bench" -d 'Retrieval quality: a LongMemEval-format dataset (a JSON array: recall_any@{1,5,10}, NDCG@10), or a JSON Lines evaluation set per ranking mode'
complete -c bob -n "__fish_bob_using_subcommand memory; and not __fish_seen_subcommand_from propose candidates approve reject query list stm promote practice gc import reindex convert export bench help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l input -d 'Read from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l session -d 'Session the candidates came from (kept as provenance)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l run -d 'Run the candidates came from (kept as provenance)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from propose" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l status -d 'Only candidates with this status' -r -f -a "pending\t''
approved\t''
rejected\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l user -d 'Only this memory user\'s (or profile\'s) candidates [default: every user\'s]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from candidates" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l edit -d 'JSON object of candidate fields to replace before storing (an "edit" decision); `type` and `source` must be among the accepted values (see `memory propose`)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l actor -d 'Who decided [default: $BOB_ACTOR, else $USER, else "human"]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l user -d 'Memory user or profile name the candidate must belong to (not_found otherwise)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from approve" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l reason -d 'Why it is rejected (recorded on the ledger)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l actor -d 'Who decided [default: $BOB_ACTOR, else $USER, else "human"]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l user -d 'Memory user or profile name the candidate must belong to (not_found otherwise)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reject" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s k -l k -d 'Number of hits' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l mode -d 'How hits are ranked [default: hybrid with embeddings configured, else lexical]' -r -f -a "lexical\t''
semantic\t''
hybrid\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l tags -d 'Only records carrying every one of these tags (comma-separated or repeated)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from query" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l scope -d 'Which memory to list' -r -f -a "short_term\t''
long_term\t''"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l limit -d 'At most this many entries, newest first' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l include-body -d 'Include record bodies'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l all-users -d 'Every user\'s entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from stm" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
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
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l user -d 'Only this memory user\'s (or profile\'s) entries [default: every user\'s]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l dry-run -d 'Show what would be nominated; change nothing'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from promote" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l since -d 'How far back to look: a duration such as 30m, 24h or 7d' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l user -d 'Memory user or profile name' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from practice" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l actor -d 'Who is recorded on the ledger [default: $BOB_ACTOR, else $USER, else "human"]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l user -d 'Only this memory user\'s (or profile\'s) records and entries [default: every user\'s]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l user -d 'Memory user for records that name none' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l actor -d 'Who is recorded on the ledger [default: $BOB_ACTOR, else $USER, else "human"]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l jsonl -d 'Read every file as JSON Lines (one record per line)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l markdown -d 'Read every file as one markdown document'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -l missing -d 'Only records that have no vector of the configured model yet'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from reindex" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -l user -d 'Memory user the record is for' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from convert" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l user -d 'Only this memory user\'s (or profile\'s) records [default: every user\'s]' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l output -d 'Write to FILE (atomically) instead of stdout' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l index -d 'Write the tag index (the seed\'s index.json) instead of the records: one JSON document {records, tags: {tag: [ids]}, memories: {id: metadata without the body}}'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l dataset -d 'The dataset: a LongMemEval JSON file (questions with their haystack sessions)' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l scale -d 'JSON Lines set: also measure the latency with the store grown to N records (copies of the set\'s memories)' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l detail -d 'Include per-question results (LongMemEval), or each query\'s best 40 per mode with both component scores (JSON Lines set)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from bench" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "query" -d 'Ranked query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "list" -d 'List short-term or long-term memory (JSON I/O memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "practice" -d 'Practice/learn consolidation (the Bob v0 runtime): propose pending candidates from what happened since the cutoff: tools that failed in two or more calls across the turns in turns.jsonl (at most 2), and p1\'s MTG lessons of every game journaled under mtg/ that started then and has ended. Never writes long-term memory: approve or reject what it proposes'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "import" -d 'Import memory records: markdown files or JSON Lines (JSON I/O records, `memory export` lines); one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "reindex" -d 'Embed long-term records with the configured embedder (memory.embeddings): every record, replacing the vectors of an earlier model, or with --missing only the queued ones (records with no vector of the configured model). A progress bar is drawn on stderr when it is a terminal'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "convert" -d 'Print the memory record a markdown file converts to (as `memory import` would store it: title, summary, facts, tags and front matter, token estimate), without storing it'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write every long-term record as JSON Lines, or with --index the tag index'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "bench" -d 'Retrieval quality: a LongMemEval-format dataset (a JSON array: recall_any@{1,5,10}, NDCG@10), or a JSON Lines evaluation set per ranking mode'
complete -c bob -n "__fish_bob_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand chat" -l system -d 'A system message put before the others' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -s s -l session -d 'Talk in this session: its conversation goes before the message and the exchange is stored in it [default: none, the call remembers nothing]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l input -d 'Read the request from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand chat" -l role -d 'The pipeline role making the call (replay scripts match on it)' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l route -d 'Which model configuration to use (mtg: BOB_MTG_* when BOB_ROUTE_MTG_REMOTE=true)' -r -f -a "chat\t''
mtg\t''"
complete -c bob -n "__fish_bob_using_subcommand chat" -l backend -d 'Backend: `openai` (HTTP, the default when configured), `replay:FILE` (scripted replies from a JSON Lines file, one {role?, content} per line) or `adversarial` (a built-in model that does the worst it can; see `bob eval run`) [env: BOB_BACKEND]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l base-url -d 'Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default: https://api.openai.com/v1]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -s m -l model -d 'Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l api-key-env -d 'Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then OPENAI_API_KEY]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l connect-timeout -d 'Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l timeout -d 'Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT; default: 120]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l max-retries -d 'Retries after the first attempt on 429, 5xx and connection errors [env: BOB_CHAT_MAX_RETRIES; default: 3]' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand chat" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand chat" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand chat" -s c -l continue -d 'Go on with the session of the last turn or chat session run in this home'
complete -c bob -n "__fish_bob_using_subcommand chat" -l stream -d 'Stream the reply: JSON Lines of deltas, or on a terminal the text as it arrives'
complete -c bob -n "__fish_bob_using_subcommand chat" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand chat" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -s s -l session -d 'Session id [default: the input\'s session_id, else `default`]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l system -d 'Your own instructions for this turn, given to every role after bob\'s rules (which they do not override) [default: the input\'s system]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l agent -d 'Agent id (names the audit log directory)' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l user -d 'User id (memory user for retrieval and candidates) [default: the input\'s user_id]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l mode -d 'chat: mutating tool calls are not run but staged as requires_confirm for `bob tool confirm`; act: they run when enabled and valid (the JSON I/O contracts)' -r -f -a "chat\t''
act\t''"
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l profile -d 'Pipeline profile (panda: JSON I/O Thinking → Solver, JSON outputs parsed as contracts)' -r -f -a "bob\t''
spectator\t''
solo\t''
panda\t''"
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l thinking-mode -d 'Include the sanitized role notes in the record: never, on_error, always [default: the input\'s thinking_mode, else never]' -r -f -a "never\t''
on_error\t''
always\t''"
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l expect-revision -d 'Commit only if the checkpoint is still at this revision (else conflict, exit 5)' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l max-tool-rounds -d 'Most tool-loop rounds of the final role' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l seed -d 'Replay seed: every id the turn draws (run id, audit nonces, short-term entry and candidate ids) derives from it, the session and the checkpoint revision, and durations are recorded as 0, so with BOB_NOW and a replay backend the turn\'s stdout, records and files are byte-identical across runs and homes [default: setting turn.seed (BOB_SEED, config.toml), else none]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l input -d 'Read the turn input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l backend -d 'Backend: `openai` (HTTP, the default when configured), `replay:FILE` (scripted replies from a JSON Lines file, one {role?, content} per line) or `adversarial` (a built-in model that does the worst it can; see `bob eval run`) [env: BOB_BACKEND]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l base-url -d 'Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default: https://api.openai.com/v1]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -s m -l model -d 'Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l api-key-env -d 'Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then OPENAI_API_KEY]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l connect-timeout -d 'Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l timeout -d 'Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT; default: 120]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l max-retries -d 'Retries after the first attempt on 429, 5xx and connection errors [env: BOB_CHAT_MAX_RETRIES; default: 3]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -s c -l continue -d 'Go on with the session of the last turn (or `bob chat -s`) run in this home'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l stream -d 'Stream the LLM calls (SSE; traced as llm_stream); on a terminal the answer shows as it arrives'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -a "commit" -d 'The stage-by-stage pipeline\'s last stage: commit the turn the earlier stages ran'
complete -c bob -n "__fish_bob_using_subcommand turn; and not __fish_seen_subcommand_from commit help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l session -d 'Session id [default: the input\'s session_id, else `default`]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l agent -d 'Agent id (names the audit log directory)' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l user -d 'User id [default: the input\'s user_id]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l profile -d 'Pipeline profile the replies come from' -r -f -a "bob\t''
spectator\t''
solo\t''
panda\t''"
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l expect-revision -d 'Commit only if the checkpoint is still at this revision (else conflict, exit 5)' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l seed -d 'Replay seed, as for `bob turn` (the same seed, session and revision give the same ids) [default: setting turn.seed (BOB_SEED, config.toml), else none]' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l input -d 'Read the input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from commit" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from help" -f -a "commit" -d 'The stage-by-stage pipeline\'s last stage: commit the turn the earlier stages ran'
complete -c bob -n "__fish_bob_using_subcommand turn; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand context" -l session -d 'Session id [default: the input\'s session_id, else `default`]' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l role -d 'Role within the profile (bob: think, respond; spectator: reflection, planner, critic, governor; solo: solo)' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l profile -d 'Pipeline profile' -r -f -a "bob\t''
spectator\t''
solo\t''"
complete -c bob -n "__fish_bob_using_subcommand context" -l upstream -d 'Earlier roles\' outputs (JSON array of {role, content}, or plain text)' -r -F
complete -c bob -n "__fish_bob_using_subcommand context" -l user -d 'Memory user for retrieval [default: the input\'s user_id, else `default`]' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l input -d 'Read the turn input from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand context" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand context" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand context" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand context" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand context" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "add" -d 'Create a job from flags and/or a JSON job on stdin (`id` and `schedule` required)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "update" -d 'Change a job\'s agentID, schedule, message, enabled, session or timeout_s (flags and/or a JSON object on stdin); a new schedule re-places next_run'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "list" -d 'List jobs (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "show" -d 'Show one job'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "rm" -d 'Delete a job (its history stays)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "pause" -d 'Pause one job, or with no ID the whole scheduler'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "resume" -d 'Resume one job, or with no ID the whole scheduler; a job that became due while paused runs once at the next tick'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "tick" -d 'Run every due job once as `bob turn` and print {now, ran, skipped, failed, ...}'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "run" -d 'Run one job now, whatever its schedule or pause state; prints the run record and exits with the failure\'s code when the turn fails'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "history" -d 'List past runs from schedule/history.jsonl (JSON Lines), of one job or all'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "status" -d 'Summary: paused flag, job counts and the next due time'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "daemon" -d 'Tick in a loop in this process (for systems without cron); stops on SIGINT/SIGTERM'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "install" -d 'Print a crontab line, or systemd service and timer units, that tick every minute'
complete -c bob -n "__fish_bob_using_subcommand schedule; and not __fish_seen_subcommand_from add update list show rm pause resume tick run history status daemon install help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l id -d 'Job id (letters, digits and . _ - : @; at most 120)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l agent -d 'The turn\'s agent (Openclawssy `agentID`)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l schedule -d '"@every <Go duration>" or a one-shot RFC3339 timestamp' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l message -d 'The message each run sends to the turn' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l session -d 'Session id of the job\'s turns [default: job-<id>]' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l timeout -d 'This job\'s timeout (Go duration, or whole seconds) [default: the runner\'s --timeout]' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l input -d 'Read the JSON job from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l disabled -d 'Create the job paused (enabled: false)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l agent -d 'The turn\'s agent (Openclawssy `agentID`)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l schedule -d '"@every <Go duration>" or a one-shot RFC3339 timestamp' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l message -d 'The message each run sends to the turn' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l session -d 'Session id of the job\'s turns [default: job-<id>]' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l timeout -d 'This job\'s timeout (Go duration, or whole seconds) [default: the runner\'s --timeout]' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l input -d 'Read the JSON job from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from pause" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from resume" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l timeout -d 'Timeout of a job that sets no timeout_s (Go duration, or whole seconds)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l max-parallel -d 'Most turns running at once' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from tick" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -l timeout -d 'Timeout if the job sets no timeout_s (Go duration, or whole seconds)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -l limit -d 'Only the last N runs' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from history" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l interval -d 'Time between ticks (Go duration, or whole seconds)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l timeout -d 'Timeout of a job that sets no timeout_s (Go duration, or whole seconds)' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l max-parallel -d 'Most turns running at once' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l cron -d 'Print the crontab line'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l systemd -d 'Print the systemd service and timer units'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "add" -d 'Create a job from flags and/or a JSON job on stdin (`id` and `schedule` required)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a job\'s agentID, schedule, message, enabled, session or timeout_s (flags and/or a JSON object on stdin); a new schedule re-places next_run'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "list" -d 'List jobs (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one job'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Delete a job (its history stays)'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "pause" -d 'Pause one job, or with no ID the whole scheduler'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Resume one job, or with no ID the whole scheduler; a job that became due while paused runs once at the next tick'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "tick" -d 'Run every due job once as `bob turn` and print {now, ran, skipped, failed, ...}'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run one job now, whatever its schedule or pause state; prints the run record and exits with the failure\'s code when the turn fails'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "history" -d 'List past runs from schedule/history.jsonl (JSON Lines), of one job or all'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "status" -d 'Summary: paused flag, job counts and the next due time'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "daemon" -d 'Tick in a loop in this process (for systems without cron); stops on SIGINT/SIGTERM'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "install" -d 'Print a crontab line, or systemd service and timer units, that tick every minute'
complete -c bob -n "__fish_bob_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "new" -d 'Start a game from two decks, or from a position (--setup POSITION.json)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "state" -d 'Print the visible state for one viewer (hidden zones as counts)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "actions" -d 'Print the ActionSurface {decision_id, player, kind, options} for whoever must decide'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "act" -d 'Apply one action {decision_id, type, …} read from stdin (or --input FILE)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "schema" -d 'Print the JSON Schema of an action (get_action_schema)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "journal" -d 'Print a game\'s journal (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "replay" -d 'Re-run a game\'s journal from its start and compare every state hash'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "cards" -d 'List the card pool, or import Scryfall card objects (`cards import FILE`)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "decks" -d 'List the built-in decks'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "selfplay" -d 'Play many games in this process and report games/s, wins, turns and invariant checks'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "ask" -d 'Ask a tutoring question about a game; the chat model answers from the asker\'s visible state only, and question and answer go into the journal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "lessons" -d 'Propose MTGLessons for one seat of a game as pending memory candidates'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "play" -d 'Let agents (random, heuristic, human) play a game to its end, journaling each decision'
complete -c bob -n "__fish_bob_using_subcommand mtg; and not __fish_seen_subcommand_from new state actions act schema journal replay cards decks selfplay ask lessons play help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l deck -d 'A deck for p1, then one for p2 (built-in name or decklist file)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l setup -d 'Start from this position file instead of decks' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l seed -d 'Seed of the game\'s random stream (shuffles, starting player)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l game -d 'Game id [default: a new random id]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from new" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l game -d 'Game id' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l as -d 'Viewer: p1, p2 or all (the engine\'s full view) [default: the player who must decide]' -r -f -a "p1\t''
p2\t''
all\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from state" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l game -d 'Game id' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l as -d 'The seat asking: options are shown only for its own decision' -r -f -a "p1\t''
p2\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from actions" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l game -d 'Game id' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l input -d 'Read the action from FILE instead of stdin' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from act" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from schema" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -l game -d 'Game id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from journal" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -l game -d 'Game id (letters, digits, . _ - : @)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from replay" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -f -a "import" -d 'Add the playable cards of a Scryfall file (bulk oracle_cards list or a search result {data:[…]}) or an MTGJSON AtomicCards file to this home\'s pool; lists the refused ones with the reason'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -f -a "coverage" -d 'How many cards of a file or a shipped set compile and how many the engine plays, by rarity; the rest grouped by the template they miss'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from cards" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from decks" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l games -d 'Number of games' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l seed -d 'Seed of the first game (game i uses seed + i)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l deck -d 'A deck for p1, then one for p2 (built-in name or decklist file)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l p1 -d 'p1\'s agent' -r -f -a "random\t''
heuristic\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l p2 -d 'p2\'s agent' -r -f -a "random\t''
heuristic\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from selfplay" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l game -d 'Game id' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l as -d 'The asker\'s seat [default: the player who must decide]' -r -f -a "p1\t''
p2\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l backend -d 'Backend: `openai` (HTTP, the default when configured), `replay:FILE` (scripted replies from a JSON Lines file, one {role?, content} per line) or `adversarial` (a built-in model that does the worst it can; see `bob eval run`) [env: BOB_BACKEND]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l base-url -d 'Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default: https://api.openai.com/v1]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -s m -l model -d 'Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l api-key-env -d 'Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then OPENAI_API_KEY]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l connect-timeout -d 'Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l timeout -d 'Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT; default: 120]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l max-retries -d 'Retries after the first attempt on 429, 5xx and connection errors [env: BOB_CHAT_MAX_RETRIES; default: 3]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from ask" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l game -d 'Game id' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l player -d 'The seat whose play the lessons are about' -r -f -a "p1\t''
p2\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l user -d 'Memory user the candidates are for [default: default]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from lessons" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l game -d 'Game id (an existing game, from `bob mtg new`)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l p1 -d 'p1\'s agent' -r -f -a "random\t''
heuristic\t''
human\t''
model\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l p2 -d 'p2\'s agent' -r -f -a "random\t''
heuristic\t''
human\t''
model\t''"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l max-decisions -d 'Stop after this many decisions (the game can be continued later)' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l model-retries -d 'How often an illegal model reply is fed back before the safe default (pass, no attack, no blocks, keep) is taken and an `illegal_action` line is journaled' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l backend -d 'Backend: `openai` (HTTP, the default when configured), `replay:FILE` (scripted replies from a JSON Lines file, one {role?, content} per line) or `adversarial` (a built-in model that does the worst it can; see `bob eval run`) [env: BOB_BACKEND]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l base-url -d 'Chat Completions base URL [env: BOB_CHAT_BASE_URL, OPENAI_BASE_URL; default: https://api.openai.com/v1]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -s m -l model -d 'Model id [env: BOB_CHAT_MODEL; default: gpt-4o-mini]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l api-key-env -d 'Name of the environment variable holding the API key [default: BOB_CHAT_API_KEY, then OPENAI_API_KEY]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l connect-timeout -d 'Connect timeout in seconds [env: BOB_CHAT_CONNECT_TIMEOUT; default: 10]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l timeout -d 'Read timeout in seconds (time without any bytes from the server) [env: BOB_CHAT_TIMEOUT; default: 120]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l max-retries -d 'Retries after the first attempt on 429, 5xx and connection errors [env: BOB_CHAT_MAX_RETRIES; default: 3]' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from play" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "new" -d 'Start a game from two decks, or from a position (--setup POSITION.json)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "state" -d 'Print the visible state for one viewer (hidden zones as counts)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "actions" -d 'Print the ActionSurface {decision_id, player, kind, options} for whoever must decide'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "act" -d 'Apply one action {decision_id, type, …} read from stdin (or --input FILE)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "schema" -d 'Print the JSON Schema of an action (get_action_schema)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "journal" -d 'Print a game\'s journal (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Re-run a game\'s journal from its start and compare every state hash'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "cards" -d 'List the card pool, or import Scryfall card objects (`cards import FILE`)'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "decks" -d 'List the built-in decks'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "selfplay" -d 'Play many games in this process and report games/s, wins, turns and invariant checks'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "ask" -d 'Ask a tutoring question about a game; the chat model answers from the asker\'s visible state only, and question and answer go into the journal'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "lessons" -d 'Propose MTGLessons for one seat of a game as pending memory candidates'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "play" -d 'Let agents (random, heuristic, human) play a game to its end, journaling each decision'
complete -c bob -n "__fish_bob_using_subcommand mtg; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -f -a "set" -d 'Store a secret; the value is read from stdin (one trailing newline dropped), never argv'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -f -a "list" -d 'List secret names (JSON Lines {name, created_at, updated_at, bound_to?}; never values)'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -f -a "rm" -d 'Remove a secret'
complete -c bob -n "__fish_bob_using_subcommand secrets; and not __fish_seen_subcommand_from set list rm help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -l for -d 'Bind the secret to this URL\'s origin (scheme://host[:port]): it is sent there and nowhere else. Without it the secret is bound to the origin of its first use' -r
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from help" -f -a "set" -d 'Store a secret; the value is read from stdin (one trailing newline dropped), never argv'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from help" -f -a "list" -d 'List secret names (JSON Lines {name, created_at, updated_at, bound_to?}; never values)'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Remove a secret'
complete -c bob -n "__fish_bob_using_subcommand secrets; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l bind -d 'Address to listen on; a port of 0 picks a free one [default: setting serve.bind, else 127.0.0.1:8765]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l workers -d 'Worker threads running turns [default: setting serve.workers, else 2]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l queue -d 'Most runs waiting in the queue; beyond it POST /v1/runs answers queue.full (503) [default: setting serve.queue, else 1000]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l max-body -d 'Largest request body, in bytes [default: setting serve.max_body, else 1048576]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l request-timeout -d 'Seconds to answer a request (an SSE stream: to start it) [default: setting serve.request_timeout_s, else 30]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l backend -d 'Backend for every run: openai or replay:FILE [default: BOB_BACKEND, config.toml]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l chat-rate -d 'Chat messages each sender (user_id, case-folded, trailing digits and punctuation dropped) may send per minute to one agent in one room; beyond it chat.rate_limited [default: setting serve.chat_rate, else 20]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l drain-timeout -d 'Seconds a drain (SIGTERM) gives running runs to finish; then each is cut short and re-queued (or, if it already called a tool, failed with reason interrupted) [default: setting serve.drain_timeout_s (BOB_SERVE_DRAIN_TIMEOUT, config.toml), else 20]' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l public -d 'Allow a non-loopback --bind (the API is then reachable from the network)'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -f -a "token" -d 'Create, list or revoke API tokens (stored hashed in serve/tokens.json)'
complete -c bob -n "__fish_bob_using_subcommand serve; and not __fish_seen_subcommand_from token help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -f -a "create" -d 'Create a token and print it once: {id, name, scopes, token, created_at}'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -f -a "list" -d 'List tokens (JSON Lines {id, name, scopes, created_at, revoked_at?}; never the token)'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -f -a "revoke" -d 'Revoke a token by id; it stops working on the next request'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from token" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from help" -f -a "token" -d 'Create, list or revoke API tokens (stored hashed in serve/tokens.json)'
complete -c bob -n "__fish_bob_using_subcommand serve; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -f -a "run" -d 'Run the cases through the real turn pipeline, each in a fresh temporary home, and score them'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -f -a "list" -d 'List the cases (built-in and --cases DIR) as JSON Lines: {id, suite, kind, title}'
complete -c bob -n "__fish_bob_using_subcommand eval; and not __fish_seen_subcommand_from run list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l suite -d 'Run only these suites (repeatable) [default: all]' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l backend -d 'adversarial, replay, replay:FILE, openai, or an OpenAI-compatible base URL' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l profile -d 'Pipeline profile the turns run with' -r -f -a "bob\t''
spectator\t''
solo\t''
panda\t''"
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l cases -d 'Also load every *.jsonl case file of DIR' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l repeat -d 'Run each case N times (nonce seeds seed, seed+1, …)' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l seed -d 'Seed of the turns\' nonces' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l jobs -d 'Cases run at once [default: the number of cores]' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l fail-under -d 'Fail (exit 8) when METRIC is under VALUE (benign_utility, utility_under_attack, pass_rate) or over it (targeted_asr, ungranted_side_effects, scaffold_leaks, self_grants); repeatable' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l out -d 'Write one JSON line per case run to FILE' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l junit -d 'Write JUnit XML to FILE' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l report -d 'Write a self-contained HTML report to FILE' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l model -d 'Model id (URL and openai backends)' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l api-key-env -d 'Name of the environment variable holding the API key (URL and openai backends)' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l timeout -d 'Read timeout in seconds (URL and openai backends)' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l cases -d 'Also load every *.jsonl case file of DIR' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l suite -d 'Only these suites (repeatable)' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run the cases through the real turn pipeline, each in a fresh temporary home, and score them'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the cases (built-in and --cases DIR) as JSON Lines: {id, suite, kind, title}'
complete -c bob -n "__fish_bob_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -f -a "list" -d 'List run bundles, newest first (JSON Lines {run_id, session_id, agent_id, status, ts, tools, output_chars})'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -f -a "show" -d 'Show one bundle: {run_id, path, request, record, events, tool_results}'
complete -c bob -n "__fish_bob_using_subcommand runs; and not __fish_seen_subcommand_from list show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -l limit -d 'Show at most N' -r
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from help" -f -a "list" -d 'List run bundles, newest first (JSON Lines {run_id, session_id, agent_id, status, ts, tools, output_chars})'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one bundle: {run_id, path, request, record, events, tool_results}'
complete -c bob -n "__fish_bob_using_subcommand runs; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -f -a "show" -d 'Print the effective settings: each value with its source (flag, env, config, default)'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -f -a "path" -d 'Print the config files bob reads: the home\'s config.toml and your own'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -f -a "set" -d 'Set one setting in the home\'s config.toml, checked as the file is read'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -f -a "unset" -d 'Remove one setting from the home\'s config.toml (its default, or your own file\'s value, applies again)'
complete -c bob -n "__fish_bob_using_subcommand config; and not __fish_seen_subcommand_from show path set unset help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from unset" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the effective settings: each value with its source (flag, env, config, default)'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the config files bob reads: the home\'s config.toml and your own'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set one setting in the home\'s config.toml, checked as the file is read'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "unset" -d 'Remove one setting from the home\'s config.toml (its default, or your own file\'s value, applies again)'
complete -c bob -n "__fish_bob_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand completion" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand completion" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand completion" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand completion" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand completion" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -f -a "status" -d 'Print which store this home uses and, for the database, whether it is reachable'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -f -a "migrate" -d 'Apply the schema migrations this bob knows to the database (each exactly once, under an advisory lock, so nodes may run it at the same time)'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -f -a "import" -d 'Copy an embedded home\'s stores into the database: memories, candidates, approval ledger, audit events, checkpoints, turn records, STM, jobs, serve runs, secrets, serve tokens and memory vectors'
complete -c bob -n "__fish_bob_using_subcommand db; and not __fish_seen_subcommand_from status migrate import help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from migrate" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -l from -d 'The home to copy from (its directory)' -r -F
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "status" -d 'Print which store this home uses and, for the database, whether it is reachable'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Apply the schema migrations this bob knows to the database (each exactly once, under an advisory lock, so nodes may run it at the same time)'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "import" -d 'Copy an embedded home\'s stores into the database: memories, candidates, approval ledger, audit events, checkpoints, turn records, STM, jobs, serve runs, secrets, serve tokens and memory vectors'
complete -c bob -n "__fish_bob_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -f -a "export" -d 'Write this node\'s keys to FILE (a new file, mode 0600; - for stdout, never a terminal)'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -f -a "import" -d 'Install the keys of a bundle written by `bob keys export` on this node'
complete -c bob -n "__fish_bob_using_subcommand keys; and not __fish_seen_subcommand_from export import help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write this node\'s keys to FILE (a new file, mode 0600; - for stdout, never a terminal)'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "import" -d 'Install the keys of a bundle written by `bob keys export` on this node'
complete -c bob -n "__fish_bob_using_subcommand keys; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand generate" -l out -d 'Directory that receives man/ and completions/' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l home -d 'Home directory holding all persistent files [default: $BOB_HOME, else ./runtime when it exists, else $XDG_DATA_HOME/bob, i.e. ~/.local/share/bob]' -r -F
complete -c bob -n "__fish_bob_using_subcommand generate" -l now -d 'Pin the clock to this RFC3339 time [default: $BOB_NOW, else config.toml clock.now, else the system clock] so TTLs and schedules are deterministic' -r
complete -c bob -n "__fish_bob_using_subcommand generate" -l format -d 'Output format: json (default when stdout is not a terminal) or table (human view)' -r -f -a "json\t''
table\t''
block\t'A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)'"
complete -c bob -n "__fish_bob_using_subcommand generate" -l json -d 'Force JSON output even on a terminal'
complete -c bob -n "__fish_bob_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bob -n "__fish_bob_using_subcommand generate" -s V -l version -d 'Print version'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "init" -d 'Create the home directory and its layout'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "state" -d 'Show or replace a session\'s checkpoint (revisioned)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "caps" -d 'List, request, grant or revoke a session\'s capabilities'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "notes" -d 'Extract NOTES_JSON patches from assistant text, or apply a patch to a checkpoint'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "condense" -d 'Deterministically condense a message list to fit the context caps'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "sanitize" -d 'Strip scaffold blocks, markers and chain-of-thought from model output'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "trace" -d 'Emit, query, follow and summarise trace events'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "ledger" -d 'Show, verify, anchor, rekey or repair hash-chained logs (approval ledger, audit log)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "schema" -d 'Print the JSON Schema of a contract type'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "search" -d 'Run a SearchRequest: fetch, extract and stage web pages, files or search results'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "tool" -d 'List, describe and run tools under the sandbox and policy'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "memory" -d 'Short-term and long-term memory, candidates and approvals'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "chat" -d 'One raw call to the chat backend (not a turn): messages JSON in, reply out'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "turn" -d 'Run one turn through the role pipeline (`bob turn commit`: the pipeline\'s last stage)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "context" -d 'Build the labelled role inputs for a session and role'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "schedule" -d 'Cron-friendly jobs that run turns'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "mtg" -d 'Play Magic: The Gathering through the rules engine (state, actions, act, journal)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "secrets" -d 'Store, list and remove secrets (one-way: values are never shown)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "serve" -d 'Serve the HTTP API (runs queue, SSE events) and manage its tokens'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "eval" -d 'Run the integrity suites (the Spectator test suite) against a backend and report'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "runs" -d 'List and show run bundles (runs/<run_id>/)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "config" -d 'Show the effective settings and where each came from; set or unset one in config.toml'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "completion" -d 'Print the completion script of a shell (bash, zsh or fish)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "db" -d 'The shared store\'s PostgreSQL database: status and schema migrations'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "keys" -d 'Export or import this node\'s chain and secrets keys (for nodes sharing one database)'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "generate" -d 'Regenerate man pages and shell completions'
complete -c bob -n "__fish_bob_using_subcommand help; and not __fish_seen_subcommand_from init state caps notes condense sanitize trace ledger schema search tool memory chat turn context schedule mtg secrets serve eval runs config completion db keys generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from state" -f -a "show" -d 'Print the session\'s checkpoint JSON'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from state" -f -a "set" -d 'Change the session\'s state by hand (a human act, audited); bumps the revision'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from caps" -f -a "list" -d 'Print {session_id, revision, granted, pending}'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from caps" -f -a "request" -d 'Ask for CAP: adds it to pending unless it is already granted'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from caps" -f -a "grant" -d 'Grant CAP (a human act): adds it to granted and removes it from pending'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from caps" -f -a "revoke" -d 'Revoke CAP: removes it from granted and from pending'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "extract" -d 'Remove every NOTES_JSON block from assistant text and parse the patches'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "apply" -d 'Apply a NOTES patch to a session\'s checkpoint (bumps the revision)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from trace" -f -a "emit" -d 'Append trace events {ts, kind, data} to a session\'s trace'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from trace" -f -a "query" -d 'Print the events that match, as JSON Lines (original bytes)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from trace" -f -a "tail" -d 'Print the last N events of a session\'s trace, optionally following new ones'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from trace" -f -a "stats" -d 'Count events by kind, first/last ts and damaged lines'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "verify" -d 'Verify keyed hash-chained logs and name the first bad line of each: every link, the home\'s chain key, and each log\'s head in keys/manifest.json (a deleted tail, a deleted day file, a chain recomputed without the key, a missing or different key). With no FILE (or --all), verifies every chained log of the home: the approval ledger, every audit day file, and every file the manifest lists; with database.url set, every chain of the shared store too (postgres:memory_ledger, postgres:audit_events/AGENT). One report line per file; exits 5 (conflict) when any fails, and when any record cannot be checked with a key the home holds (unkeyed legacy records, records of an epoch whose key was lost) unless --allow-legacy'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "anchor" -d 'Print a signed statement of every chain\'s head: the manifest\'s heads and generation, a timestamp and the key\'s fingerprint, under the chain key\'s MAC. Keep it outside the home (e.g. cron it to another host); `bob ledger verify --anchor FILE` then finds a home restored from an older copy. With database.url set it also signs the head of every chain of the database (shared) and keeps the statement in the home (keys/shared_anchor.json), which `bob ledger verify --all` then checks the database against: a chain whose newest rows were deleted fails'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "rekey" -d 'Start a new key epoch (a human act, audited): needed when the chain key is missing or is not the key the manifest names, and for a rotation. The configured key file is used when it holds a key the manifest does not name, created when missing, replaced when it is the manifest\'s own key (a rotation). The previous key, when still at hand, is kept in keys/retired/ so its epoch stays verifiable; a lost key\'s epoch is reported as unverifiable. Every chained log is adopted as it stands now. With database.url set it rotates the key of the database\'s chains instead: a new key, sealed with the secrets key every node shares, and an epoch record signed by it at the end of every chain; every node signs with the new key from its next append, verifies every epoch, and the nodes\' key files stay as they are'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "show" -d 'Print a hash-chained log\'s records as JSON Lines, oldest first [default: the approval ledger, the shared store\'s when database.url is set]. Filters combine with AND; --limit applies after them'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from ledger" -f -a "repair" -d 'Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can continue. Whole records are never touched'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "list" -d 'List the registered tools (JSON Lines: name, kind, mutating, aliases, description)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "schema" -d 'Print a tool\'s input JSON Schema (aliases resolve to their tool)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "run" -d 'Run tool calls read from stdin, in order; one response envelope per call on stdout'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "enable" -d 'Enable tools for a session (a human act), stored in sessions/<id>/tools.json'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "disable" -d 'Disable tools for a session'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "turbotime" -d 'Turn TURBOTIME on or off for a session and select its tools (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "confirm" -d 'Run a tool call a Chat-mode turn staged as requires_confirm (a human act, audited)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "loop" -d 'Show a session\'s failure-loop state (the run lifecycle events)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "propose" -d 'Store memory candidates (redacted) as pending. Reads a candidate, an array, a {save_plan|suggest_memory_save|memory_candidates: …} wrapper, or THINK output with <<<MEMORY_CANDIDATES_JSON>>> … <<<END_MEMORY_CANDIDATES_JSON>>> blocks (at most 2 taken)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "candidates" -d 'List candidates (JSON Lines), oldest first'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "approve" -d 'Approve a pending candidate (optionally edited): ledger record first, then LTM. A candidate already decided is a conflict (exit 5)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "reject" -d 'Reject a pending candidate; the decision and reason go to the ledger'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "query" -d 'Ranked query of long-term memory (JSON Lines hits; --format block renders the RETRIEVED_MEMORY block)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "list" -d 'List short-term or long-term memory (JSON I/O memory_admin)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "stm" -d 'Short-term memory entries'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "promote" -d 'Nominate short-term entries (access_count >= 3, sessions_seen >= 2, live, not tainted) as pending candidates; each entry is attempted once'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "practice" -d 'Practice/learn consolidation (the Bob v0 runtime): propose pending candidates from what happened since the cutoff: tools that failed in two or more calls across the turns in turns.jsonl (at most 2), and p1\'s MTG lessons of every game journaled under mtg/ that started then and has ended. Never writes long-term memory: approve or reject what it proposes'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "gc" -d 'Remove expired long-term records (recorded on the ledger) and expired short-term entries'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "import" -d 'Import memory records: markdown files or JSON Lines (JSON I/O records, `memory export` lines); one ledger record per batch'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "reindex" -d 'Embed long-term records with the configured embedder (memory.embeddings): every record, replacing the vectors of an earlier model, or with --missing only the queued ones (records with no vector of the configured model). A progress bar is drawn on stderr when it is a terminal'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "convert" -d 'Print the memory record a markdown file converts to (as `memory import` would store it: title, summary, facts, tags and front matter, token estimate), without storing it'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "export" -d 'Write every long-term record as JSON Lines, or with --index the tag index'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "bench" -d 'Retrieval quality: a LongMemEval-format dataset (a JSON array: recall_any@{1,5,10}, NDCG@10), or a JSON Lines evaluation set per ranking mode'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from turn" -f -a "commit" -d 'The stage-by-stage pipeline\'s last stage: commit the turn the earlier stages ran'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "add" -d 'Create a job from flags and/or a JSON job on stdin (`id` and `schedule` required)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "update" -d 'Change a job\'s agentID, schedule, message, enabled, session or timeout_s (flags and/or a JSON object on stdin); a new schedule re-places next_run'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "list" -d 'List jobs (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "show" -d 'Show one job'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "rm" -d 'Delete a job (its history stays)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "pause" -d 'Pause one job, or with no ID the whole scheduler'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "resume" -d 'Resume one job, or with no ID the whole scheduler; a job that became due while paused runs once at the next tick'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "tick" -d 'Run every due job once as `bob turn` and print {now, ran, skipped, failed, ...}'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "run" -d 'Run one job now, whatever its schedule or pause state; prints the run record and exits with the failure\'s code when the turn fails'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "history" -d 'List past runs from schedule/history.jsonl (JSON Lines), of one job or all'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "status" -d 'Summary: paused flag, job counts and the next due time'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "daemon" -d 'Tick in a loop in this process (for systems without cron); stops on SIGINT/SIGTERM'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "install" -d 'Print a crontab line, or systemd service and timer units, that tick every minute'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "new" -d 'Start a game from two decks, or from a position (--setup POSITION.json)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "state" -d 'Print the visible state for one viewer (hidden zones as counts)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "actions" -d 'Print the ActionSurface {decision_id, player, kind, options} for whoever must decide'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "act" -d 'Apply one action {decision_id, type, …} read from stdin (or --input FILE)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "schema" -d 'Print the JSON Schema of an action (get_action_schema)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "journal" -d 'Print a game\'s journal (JSON Lines)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "replay" -d 'Re-run a game\'s journal from its start and compare every state hash'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "cards" -d 'List the card pool, or import Scryfall card objects (`cards import FILE`)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "decks" -d 'List the built-in decks'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "selfplay" -d 'Play many games in this process and report games/s, wins, turns and invariant checks'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "ask" -d 'Ask a tutoring question about a game; the chat model answers from the asker\'s visible state only, and question and answer go into the journal'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "lessons" -d 'Propose MTGLessons for one seat of a game as pending memory candidates'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from mtg" -f -a "play" -d 'Let agents (random, heuristic, human) play a game to its end, journaling each decision'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from secrets" -f -a "set" -d 'Store a secret; the value is read from stdin (one trailing newline dropped), never argv'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from secrets" -f -a "list" -d 'List secret names (JSON Lines {name, created_at, updated_at, bound_to?}; never values)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from secrets" -f -a "rm" -d 'Remove a secret'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from serve" -f -a "token" -d 'Create, list or revoke API tokens (stored hashed in serve/tokens.json)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "run" -d 'Run the cases through the real turn pipeline, each in a fresh temporary home, and score them'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "list" -d 'List the cases (built-in and --cases DIR) as JSON Lines: {id, suite, kind, title}'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from runs" -f -a "list" -d 'List run bundles, newest first (JSON Lines {run_id, session_id, agent_id, status, ts, tools, output_chars})'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from runs" -f -a "show" -d 'Show one bundle: {run_id, path, request, record, events, tool_results}'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the effective settings: each value with its source (flag, env, config, default)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the config files bob reads: the home\'s config.toml and your own'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Set one setting in the home\'s config.toml, checked as the file is read'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "unset" -d 'Remove one setting from the home\'s config.toml (its default, or your own file\'s value, applies again)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "status" -d 'Print which store this home uses and, for the database, whether it is reachable'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "migrate" -d 'Apply the schema migrations this bob knows to the database (each exactly once, under an advisory lock, so nodes may run it at the same time)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "import" -d 'Copy an embedded home\'s stores into the database: memories, candidates, approval ledger, audit events, checkpoints, turn records, STM, jobs, serve runs, secrets, serve tokens and memory vectors'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "export" -d 'Write this node\'s keys to FILE (a new file, mode 0600; - for stdout, never a terminal)'
complete -c bob -n "__fish_bob_using_subcommand help; and __fish_seen_subcommand_from keys" -f -a "import" -d 'Install the keys of a bundle written by `bob keys export` on this node'
