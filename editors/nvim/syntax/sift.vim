" Vim syntax file for Sift (.sift), in plain Vim script so that it works in
" Neovim 0.7.2 (Debian's package) and later, and in Vim.
" The reserved words are those of docs/language.md, section 1.

if exists('b:current_syntax')
  finish
endif

syntax case match

syntax keyword siftStructure     class predicate
syntax keyword siftStorageClass  static pure
syntax keyword siftType          int bool void Object seq
syntax keyword siftConditional   if else
syntax keyword siftRepeat        while for do break continue
syntax keyword siftStatement     return new
syntax keyword siftContract      requires ensures invariant decreases
syntax keyword siftGhost         assert assume open close use join
syntax keyword siftAssertion     acc old untouched opening using in forall exists
syntax keyword siftConstant      null true false
syntax keyword siftSpecial       this result

syntax match siftNumber   '\<\d\+\>'
syntax match siftOperator '==>\|[=!<>]=\|&&\|||\|++\|--\|[-+*/%]=\|[-+*/%<>!?:=]'
" The class name after `class` and after `new`.
syntax match siftClassName '\%(\<\%(class\|new\)\s\+\)\@<=\h\w*'

syntax keyword siftTodo      contained TODO FIXME XXX NOTE
" `//~ KIND`: an expected error in a test program.
syntax match   siftAnnotation '//\~\s*[A-Za-z.]\+' contained
syntax match   siftLineComment '//.*$' contains=siftTodo,siftAnnotation,@Spell
syntax region  siftBlockComment start='/\*' end='\*/' contains=siftTodo,@Spell

highlight default link siftStructure    Structure
highlight default link siftStorageClass StorageClass
highlight default link siftType         Type
highlight default link siftConditional  Conditional
highlight default link siftRepeat       Repeat
highlight default link siftStatement    Statement
highlight default link siftContract     PreProc
highlight default link siftGhost        Keyword
highlight default link siftAssertion    Special
highlight default link siftConstant     Constant
highlight default link siftSpecial      Identifier
highlight default link siftNumber       Number
highlight default link siftOperator     Operator
highlight default link siftClassName    Type
highlight default link siftTodo         Todo
highlight default link siftAnnotation   SpecialComment
highlight default link siftLineComment  Comment
highlight default link siftBlockComment Comment

let b:current_syntax = 'sift'
