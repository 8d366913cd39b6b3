#!/usr/bin/env bash
# wordcount.sh: a Tabdeck plugin (protocol v1) in bash with coreutils only (tr, sort, uniq,
# head, tail, wc, mktemp, rm): the words of a text file with their counts.
#
# Open args: {"path": "notes.txt"} (relative to the working directory). A word is a run of
# characters between ASCII blanks and ASCII punctuation, lowercased (ASCII letters); the
# file should be UTF-8. Columns: word, count, percent (of all words). Row id = the word.
#
# Capabilities: sort and multiSort, done by sort(1): every order the host asks for becomes
# `sort -k...` over the counted words (byte order for text, numeric for numbers, the word
# as the last key so the order is total), kept in a temporary folder for the next pages.
# With no sort, the most frequent words come first. Pages are `tail -n +OFFSET | head -n LIMIT`.
export LC_ALL=C   # byte order everywhere: the order protocol text compares in
work=$(mktemp -d "${TMPDIR:-/tmp}/wordcount.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
opened=0 distinct=0 total=0

# json_get JSON KEY: set $val to the raw JSON text of top-level member KEY of the object JSON
# ("" when absent). Strings keep their quotes, so `id` is echoed back exactly as received.
# (The same scanner as docs/examples/hello.sh.)
json_get() {
  local s=$1 i c d=0 q=0 e=0 ks=0 last= vs=-1 v
  val=
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if ((q)); then
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
        if ((d == 1 && vs >= 0)); then
          v=${s:vs:i-vs}; v=${v#"${v%%[![:space:]]*}"}; val=${v%"${v##*[![:space:]]}"}
          return
        fi
        [[ $c == , ]] || d=$((d - 1)) ;;
    esac
  done
}

# json_items ARRAY: set the array $items to the raw JSON text of each element of ARRAY.
json_items() {
  local s=$1 i c d=0 q=0 e=0 start=1
  items=()
  [[ $s == \[* ]] || return 1
  for ((i = 1; i < ${#s}; i++)); do
    c=${s:i:1}
    if ((q)); then
      if ((e)); then e=0; elif [[ $c == '\' ]]; then e=1; elif [[ $c == '"' ]]; then q=0; fi
      continue
    fi
    case $c in
      '"') q=1 ;;
      '{' | '[') d=$((d + 1)) ;;
      '}') d=$((d - 1)) ;;
      ']' | ',')
        if ((d == 0)); then
          local item=${s:start:i-start}
          item=${item#"${item%%[![:space:]]*}"}; item=${item%"${item##*[![:space:]]}"}
          [[ -n $item ]] && items+=("$item")
          start=$((i + 1))
        fi
        [[ $c == ']' ]] && d=$((d - 1)) ;;
    esac
  done
}

# unquote JSON-STRING: set $str to its text (escapes \" \\ \/ \t \n; others are refused).
unquote() {
  local s=${1:1:${#1}-2} out= c i
  [[ $1 == \"*\" ]] || return 1
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [[ $c == '\' ]]; then
      i=$((i + 1)); c=${s:i:1}
      case $c in '"' | '\' | '/') ;; t) c=$'\t' ;; n) c=$'\n' ;; *) return 1 ;; esac
    fi
    out+=$c
  done
  str=$out
}

escape() { local s=${1//\\/\\\\}; esc=${s//\"/\\\"}; }   # text for inside a JSON string

send() { printf '%s\n' "$1"; }                              # one JSON object per line
reply() { send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"result\":$2}"; }
fail() { escape "$3"; send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"error\":{\"code\":$2,\"message\":\"$esc\"}}"; }

COLUMNS='[{"id":"word","title":"Word","type":"text","width":{"min":8,"ideal":24}},{"id":"count","title":"Count","type":"integer","width":8,"align":"right"},{"id":"percent","title":"%","type":"decimal","width":7,"align":"right"}]'

# open PATH: count the words into $work/counts ("  COUNT WORD" lines, from uniq -c).
open_file() {
  local path=$1 first
  if [[ ! -e $path ]]; then why="$path: no such file"; return 1; fi
  if [[ -d $path ]]; then why="$path: is a folder"; return 1; fi
  if [[ ! -r $path ]]; then why="$path: permission denied"; return 1; fi
  tr -d '\000-\010\016-\037\177' < "$path" | tr -s '[:space:][:punct:]' '\n' | tr '[:upper:]' '[:lower:]' |
    sort > "$work/words" || { why="$path: cannot read"; return 1; }
  uniq -c < "$work/words" > "$work/counts"
  total=$(wc -l < "$work/words")
  IFS= read -r first < "$work/counts"
  if [[ $first =~ ^\ *[0-9]+\ ?$ ]]; then          # the empty "word" before a leading separator
    total=$((total - ${first// /}))
    tail -n +2 "$work/counts" > "$work/c2" && mv "$work/c2" "$work/counts"
  fi
  rm -f "$work/words"
  distinct=$(wc -l < "$work/counts")
  rm -f "$work"/order.*                             # orders of a previously opened file
}

# ordered SORT-JSON: set $file to the counts in that order (made with sort(1) once per order).
ordered() {
  local name=order keys=() item column direction flag
  json_items "$1" || { why="sort must be an array"; return 1; }
  ((${#items[@]})) || items=('{"column":"count","direction":"desc"}')   # natural order
  for item in "${items[@]}"; do
    json_get "$item" column; column=$val
    json_get "$item" direction; direction=${val:-'"asc"'}
    case $direction in '"asc"') flag= ;; '"desc"') flag=r ;; *) why="bad sort direction $direction"; return 1 ;; esac
    case $column in
      '"word"') keys+=("-k2,2$flag") ;;
      '"count"' | '"percent"') keys+=("-k1,1n$flag") ;;
      *) why="unknown sort column $column"; return 1 ;;
    esac
    name+=".${keys[-1]}"
  done
  keys+=(-k2,2)                                    # the word: unique, so the order is total
  file="$work/$name"
  if [[ ! -f $file ]]; then
    sort -b "${keys[@]}" "$work/counts" > "$file.tmp" && mv "$file.tmp" "$file" || { why="sort failed"; return 1; }
  fi
}

echo "wordcount.sh: started, pid $$" >&2              # stderr: the tab's log
while IFS= read -r line || [[ -n $line ]]; do
  [[ -z $line ]] && continue
  json_get "$line" id; id=$val
  json_get "$line" method; method=$val
  json_get "$line" params; params=$val
  [[ -z $id ]] && continue                           # notifications ($/cancel, close): ignore
  case $method in
    '"initialize"')
      reply "$id" '{"name":"wordcount","version":"1.0.0","protocolVersion":1,"capabilities":{"sort":true,"multiSort":true}}' ;;
    '"open"')
      json_get "$params" args; args=$val
      json_get "$args" path
      if [[ -z $val ]]; then fail "$id" -32602 "args.path is required (the text file to count)"; continue; fi
      if ! unquote "$val"; then fail "$id" -32602 "args.path must be a plain string"; continue; fi
      if ! open_file "$str"; then fail "$id" -32602 "$why"; continue; fi
      opened=1
      escape "${str##*/}"
      reply "$id" "{\"table\":\"root\",\"title\":\"$esc\",\"columns\":$COLUMNS,\"total\":$distinct}"
      send "{\"jsonrpc\":\"2.0\",\"method\":\"status\",\"params\":{\"text\":\"$total words, $distinct distinct\"}}" ;;
    '"rows"')
      json_get "$params" table; table=$val
      json_get "$params" offset; offset=$val
      json_get "$params" limit; limit=$val
      json_get "$params" generation; gen=$val
      json_get "$params" sort; sort=${val:-[]}
      if [[ $table != '"root"' ]] || ((!opened)); then fail "$id" -32001 "unknown table $table"; continue; fi
      if ! [[ $offset =~ ^[0-9]+$ && $limit =~ ^[0-9]+$ && $gen =~ ^-?[0-9]+$ ]]; then
        fail "$id" -32602 "offset, limit and generation must be integers"; continue
      fi
      if ! ordered "$sort"; then fail "$id" -32602 "$why"; continue; fi
      rows=
      while read -r n w; do
        rows+="${rows:+,}{\"id\":\"$w\",\"cells\":[\"$w\",$n,$((n * 100 / total)).$(printf '%02d' $((n * 10000 / total % 100)))]}"
      done < <(((limit > 0)) && tail -n "+$((offset + 1))" "$file" | head -n "$limit")
      reply "$id" "{\"generation\":$gen,\"offset\":$offset,\"rows\":[$rows],\"total\":$distinct}" ;;
    '"shutdown"')
      reply "$id" null ;;                            # then wait for EOF on stdin
    *)
      fail "$id" -32601 "method not found: $method" ;;
  esac
done
echo "wordcount.sh: stdin closed, exiting" >&2
