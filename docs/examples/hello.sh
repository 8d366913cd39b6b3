#!/usr/bin/env bash
# hello.sh: a complete Tabdeck plugin (protocol v1) in plain bash: no jq, no other programs.
# Serves a read-only table of 1000 rows. It declares no capabilities, so the host sorts for it
# (and sends `sort: []`). Run it by hand:  printf '%s\n' '<request>' ... | ./hello.sh
LC_ALL=C   # scan bytes: JSON's structural characters are all ASCII
TOTAL=1000

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

echo "hello.sh: started, pid $$" >&2                 # stderr: free-form log, never parsed
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
      reply "$id" '{"name":"hello-sh","version":"1.0.0","protocolVersion":1,"capabilities":{}}' ;;
    '"open"')
      reply "$id" "{\"table\":\"root\",\"title\":\"hello\",\"columns\":[{\"id\":\"n\",\"title\":\"N\",\"type\":\"integer\",\"width\":6,\"align\":\"right\"},{\"id\":\"greeting\",\"title\":\"Greeting\",\"type\":\"text\"},{\"id\":\"even\",\"title\":\"Even\",\"type\":\"bool\",\"width\":5}],\"total\":$TOTAL}"
      send '{"jsonrpc":"2.0","method":"badge","params":{"value":"hi"}}' ;;
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
        even=true; ((n % 2)) && even=false
        rows+="${rows:+,}{\"id\":\"r$n\",\"cells\":[$n,\"hello #$n\",$even]}"
      done
      reply "$id" "{\"generation\":$gen,\"offset\":$offset,\"rows\":[$rows],\"total\":$TOTAL}" ;;
    '"shutdown"')
      reply "$id" null ;;                            # then wait for EOF on stdin
    *)
      fail "$id" -32601 "method not found" ;;
  esac
done
echo "hello.sh: stdin closed, exiting" >&2
exit 0
