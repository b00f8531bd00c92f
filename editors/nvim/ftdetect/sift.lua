-- Sift source files (Neovim 0.7 and later).
vim.cmd([[autocmd BufRead,BufNewFile *.sift setfiletype sift]])
