# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Drives a bash completion function as readline would, without a terminal: sourced by the
# completion tests after bash-completion's helpers and the completion file under test.
#
#   complete_line LINE   completes LINE at its end. CANDIDATES is then what bash would offer
#                        (COMPREPLY, sorted, separated by blanks) and COMPOPTS the options the
#                        function set with compopt (" nospace", " filenames"), which bash's own
#                        compopt only takes inside a completion that readline started. The
#                        function is the one `complete -p` names for the command, called as bash
#                        calls it: COMP_LINE and COMP_POINT are LINE; COMP_WORDS is LINE split as
#                        readline splits it, at blanks and at each run of the break characters
#                        = and : (of COMP_WORDBREAKS), which become words of their own;
#                        COMP_CWORD is the last word (empty after a trailing blank).

COMPOPTS=''
declare -A _DRIVER_FN=()
compopt() {
        local a
        for a; do
                case $a in -o) ;; +o) return 0 ;; *) COMPOPTS+=" $a" ;; esac
        done
}

complete_line() {
        local line=$1 words=() word='' c i n fn spec
        n=${#line}
        for ((i = 0; i < n; i++)); do
                c=${line:i:1}
                case $c in
                ' ')
                        [ -n "$word" ] && words+=("$word")
                        word=''
                        ;;
                '=' | ':')
                        # A run of break characters is one word of its own.
                        if [ -n "$word" ] && [[ $word != *[=:] || $word == *[!=:]* ]]; then
                                words+=("$word")
                                word=''
                        fi
                        word+=$c
                        if [[ ${line:i+1:1} != [=:] ]]; then
                                words+=("$word")
                                word=''
                        fi
                        ;;
                *) word+=$c ;;
                esac
        done
        words+=("$word")
        if [ -z "${_DRIVER_FN[${words[0]##*/}]-}" ]; then
                spec=$(complete -p "${words[0]##*/}" 2>/dev/null) || return 1
                spec=${spec#*-F }
                _DRIVER_FN[${words[0]##*/}]=${spec%% *}
        fi
        fn=${_DRIVER_FN[${words[0]##*/}]}
        COMP_LINE=$line
        COMP_POINT=${#line}
        COMP_WORDS=("${words[@]}")
        COMP_CWORD=$((${#words[@]} - 1))
        COMP_TYPE=9
        COMP_KEY=9
        COMPREPLY=()
        COMPOPTS=''
        "$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
        _driver_sort "${COMPREPLY[@]}"
}

# _driver_sort WORD...: CANDIDATES is the words in byte order, blank-separated (in bash: the
# tests complete hundreds of lines, and a fork is slow on a loaded machine).
_driver_sort() {
        local sorted=() w i j
        for w; do
                i=${#sorted[@]}
                sorted+=("$w")
                while ((i > 0)) && [[ ${sorted[i - 1]} > $w ]]; do
                        sorted[i]=${sorted[i - 1]}
                        ((i--))
                done
                sorted[i]=$w
        done
        CANDIDATES="${sorted[*]}"
}
