/// The plugin `tabdeck plugin new NAME --lang sh` writes: plain bash like docs/examples/hello.sh
/// (its JSON scanner), serving a small typed table; without capabilities, the host sorts and
/// filters it. `__NAME__` is the plugin's name.
enum StarterShellTemplate {
    static func text(_ name: String) -> String { template.replacingOccurrences(of: "__NAME__", with: name) }

    static let template = #"""
        #!/usr/bin/env bash
        # __NAME__: a Tabdeck plugin (docs/PROTOCOL.md, protocol v1) in plain bash: no jq, no SDK.
        # It declares no capabilities, so the host sorts, filters and finds for it (and sends
        # `sort: []`). Check it:  tabdeck plugin check -- bash plugin.sh
        LC_ALL=C   # scan bytes: JSON's structural characters are all ASCII

        # The table: one JSON array of cells per row (name, size, price, ripe, picked, state).
        ROWS=(
          '["apple",3,1.25,true,"2024-05-01","todo"]'
          '["banana",12,0.5,false,"2024-04-12","done"]'
          '["cherry",200,4.75,true,"2024-06-30","doing"]'
          '["damson",null,2.25,false,"2024-02-29","todo"]'
          '["elderberry",7,null,false,null,"done"]'
          '["fig",40,3.5,true,"2023-12-24","doing"]'
          '["grape",150,2.25,null,"2024-01-15",null]'
          '["kiwi",9,0.75,true,"2024-03-03","todo"]'
        )
        TOTAL=${#ROWS[@]}
        COLUMNS='[{"id":"name","title":"Name"},{"id":"size","title":"Size","type":"integer","align":"right"},{"id":"price","title":"Price","type":"decimal","decimals":2},{"id":"ripe","title":"Ripe","type":"bool"},{"id":"picked","title":"Picked","type":"date"},{"id":"state","title":"State","type":"enum","values":["todo","doing","done"]}]'

        # json_get JSON KEY: set $val to the raw JSON text of top-level member KEY of the object JSON
        # ("" when absent). Strings keep their quotes, so `id` can be echoed back exactly as received.
        json_get() {
          local s=$1 i c d=0 q=0 e=0 ks=0 last= vs=-1 v
          val=
          for ((i = 0; i < ${#s}; i++)); do
            c=${s:i:1}
            if ((q)); then                                   # inside a string literal
              if ((e)); then e=0
              elif [[ $c == '\' ]]; then e=1
              elif [[ $c == '"' ]]; then q=0; last=${s:ks:i-ks+1}
              fi
              continue
            fi
            case $c in
              '"') q=1 ks=$i ;;
              '{' | '[') d=$((d + 1)) ;;
              ':') if ((d == 1)) && [[ $last == "\"$2\"" ]]; then vs=$((i + 1)); fi ;;
              ',' | '}' | ']')
                if ((d == 1 && vs >= 0)); then                 # end of the wanted value
                  v=${s:vs:i-vs}; v=${v#"${v%%[![:space:]]*}"}; val=${v%"${v##*[![:space:]]}"}
                  return
                fi
                [[ $c == , ]] || d=$((d - 1)) ;;
            esac
          done
        }

        send() { printf '%s\n' "$1"; }                      # one JSON object per line on stdout
        reply() { send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"result\":$2}"; }
        fail() { send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"error\":{\"code\":$2,\"message\":\"$3\"}}"; }

        echo "__NAME__: started, pid $$" >&2                  # stderr: free-form log, never parsed
        while IFS= read -r line || [[ -n $line ]]; do
          [[ -z $line ]] && continue
          # Not a JSON object (the scanner below reads only well-formed ones): parse error, id null.
          [[ $line == '{'*'}' ]] || { fail null -32700 "parse error"; continue; }
          json_get "$line" id; id=$val
          json_get "$line" method; method=$val
          json_get "$line" params; params=$val
          [[ -z $id ]] && continue                           # notifications ($/cancel, close): ignore
          case $method in
            '"initialize"')
              reply "$id" '{"name":"__NAME__","version":"0.1.0","protocolVersion":1,"capabilities":{}}' ;;
            '"open"')
              reply "$id" "{\"table\":\"root\",\"title\":\"__NAME__\",\"columns\":$COLUMNS,\"total\":$TOTAL}" ;;
            '"rows"')
              json_get "$params" table; table=$val
              json_get "$params" offset; offset=$val
              json_get "$params" limit; limit=$val
              json_get "$params" generation; gen=$val
              if [[ $table != '"root"' ]]; then fail "$id" -32001 "unknown table"; continue; fi
              if ! [[ $offset =~ ^[0-9]+$ && $limit =~ ^[0-9]+$ && $gen =~ ^-?[0-9]+$ ]]; then
                fail "$id" -32602 "offset, limit and generation must be integers"; continue
              fi
              rows= end=$((offset + limit))
              ((end > TOTAL)) && end=$TOTAL
              for ((n = offset; n < end; n++)); do
                rows+="${rows:+,}{\"id\":\"r$n\",\"cells\":${ROWS[n]}}"
              done
              reply "$id" "{\"generation\":$gen,\"offset\":$offset,\"rows\":[$rows],\"total\":$TOTAL}" ;;
            '"shutdown"')
              reply "$id" null ;;                            # then wait for EOF on stdin
            *)
              fail "$id" -32601 "method not found" ;;
          esac
        done
        echo "__NAME__: stdin closed, exiting" >&2
        exit 0
        """#
}
