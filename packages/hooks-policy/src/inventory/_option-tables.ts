/**
 * How programs spell their options, as data (the format is `shell/_options.ts`'s): each spec is a
 * list of option groups, one per option, its spellings separated by `,`; `=` after the group means
 * it takes a value, `=!` a value after which the rest are the program's arguments, `?` an optional
 * value, `#` an optional glued number, `>a+b` that it stands for options a and b.
 */

/** One program's option table as written: its spec, and how it reads its words. */
export interface OptionTableSpec {
  spec: string;
  /** `-name`, `-delete`: single-dash words are whole options (find). */
  singleDashLong?: boolean;
  /** Options stop at the first operand (interpreters, git's global options, wrappers). */
  stopAtOperand?: boolean;
  /** Subcommand tables (their specs), by the first operand (git push, git branch). */
  subcommands?: Readonly<Record<string, string>>;
  /** `+toolchain` words before the subcommand are not operands (cargo +nightly). */
  plusWords?: boolean;
  /** A first word of letters without a dash is a bundle of short options (`tar xzf`). */
  bundledFirst?: boolean;
  /**
   * Every option the program takes is in the table (written from its `--help` and manual): an
   * option it does not list may write, run or change the system, so the command asks (issue 39).
   */
  closed?: boolean;
  /** Long options only as written, no unique prefixes (git's own options, before its subcommand). */
  exactLong?: boolean;
  /** Options followed by a command that ends at `;` or `+` (find's `-exec`): its words are not the program's. */
  commandUntil?: readonly string[];
}

const t = (spec: string, extra: Omit<OptionTableSpec, "spec"> = {}): OptionTableSpec => ({ spec, ...extra });

const GIT_GLOBAL =
  "-C= -c= --git-dir= --work-tree= --namespace= --exec-path? --super-prefix= --config-env= --list-cmds= -P,--no-pager -p,--paginate --bare --no-replace-objects --no-lazy-fetch --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --html-path --man-path --info-path -v,--version -h,--help --attr-source=";

const GIT_SUBCOMMANDS: Record<string, string> = {
  push: "-f,--force --force-with-lease? --force-if-includes --no-force-with-lease -d,--delete --mirror --all --branches --tags --follow-tags --prune -u,--set-upstream -n,--dry-run -v,--verbose -q,--quiet --no-verify --verify -o,--push-option= --repo= --receive-pack=,--exec= --recurse-submodules? --atomic --signed? --porcelain --thin --no-thin -4,--ipv4 -6,--ipv6",
  branch: "-d,--delete -D>--delete+--force -f,--force -m,--move -M>--move+--force -c,--copy -C>--copy+--force -r,--remotes -a,--all -l,--list -v,--verbose -q,--quiet -u,--set-upstream-to= --unset-upstream -t,--track? --no-track --contains? --no-contains? --merged? --no-merged? --points-at= --sort= --format= --color? --show-current --edit-description --create-reflog -i,--ignore-case --column? --abbrev?",
  checkout: "-f,--force -b= -B= --orphan= -t,--track? --no-track -l -d,--detach -p,--patch -q,--quiet -2,--ours -3,--theirs -m,--merge --conflict= --ignore-skip-worktree-bits --ignore-other-worktrees --overwrite-ignore --no-overwrite-ignore --recurse-submodules? --progress --no-progress --pathspec-from-file= --pathspec-file-nul --guess --no-guess --overlay --no-overlay -U,--unified= --inter-hunk-context=",
  switch: "-c,--create= -C,--force-create= -d,--detach --guess --no-guess -f,--force,--discard-changes -m,--merge --conflict= -q,--quiet --orphan= -t,--track? --no-track --ignore-other-worktrees --recurse-submodules? --progress --no-progress --overwrite-ignore --no-overwrite-ignore",
  reset: "--hard --soft --mixed --merge --keep -q,--quiet -p,--patch -N,--intent-to-add --recurse-submodules? --pathspec-from-file= --pathspec-file-nul --refresh --no-refresh -U,--unified= --inter-hunk-context=",
  clean: "-f,--force -d -x -X -n,--dry-run -i,--interactive -q,--quiet -e,--exclude=",
  restore: "-s,--source= -S,--staged -W,--worktree -p,--patch -q,--quiet -2,--ours -3,--theirs -m,--merge --conflict= --ignore-unmerged --ignore-skip-worktree-bits --overlay --no-overlay --recurse-submodules? --pathspec-from-file= --pathspec-file-nul --progress --no-progress -U,--unified= --inter-hunk-context=",
  stash: "-p,--patch -k,--keep-index --no-keep-index -u,--include-untracked --only-untracked -a,--all -q,--quiet -m,--message= -S,--staged --index --pathspec-from-file= --pathspec-file-nul -U,--unified= --inter-hunk-context=",
  commit: "-a,--all -m,--message= -F,--file= -C,--reuse-message= -c,--reedit-message= --fixup= --squash= --author= --date= -t,--template= -s,--signoff -n,--no-verify --amend --allow-empty --allow-empty-message -q,--quiet -v,--verbose -e,--edit --no-edit -p,--patch -S,--gpg-sign? --cleanup= -u,--untracked-files? --pathspec-from-file= -o,--only -i,--include --dry-run --short --porcelain -z --trailer=",
  clone: "-b,--branch= -o,--origin= --depth= --shallow-since= --shallow-exclude= -c,--config= --template= -u,--upload-pack= --reference= --reference-if-able= --separate-git-dir= -j,--jobs= --filter= --bare --mirror -l,--local --no-local -s,--shared -n,--no-checkout -q,--quiet -v,--verbose --progress --recurse-submodules? --single-branch --no-single-branch --no-tags --dissociate --sparse --also-filter-submodules --remote-submodules --shallow-submodules --bundle-uri= --server-option=",
  fetch: "--all -a,--append --depth= --deepen= --shallow-since= --shallow-exclude= --unshallow -f,--force -k,--keep -p,--prune -P,--prune-tags -t,--tags -n,--no-tags -j,--jobs= -q,--quiet -v,--verbose --dry-run -u,--update-head-ok --upload-pack= -o,--server-option= --multiple --refmap= --recurse-submodules? --progress",
  pull: "-r,--rebase? --no-rebase --ff --no-ff --ff-only -f,--force -q,--quiet -v,--verbose --all --depth= -s,--strategy= -X,--strategy-option= --upload-pack= --autostash --no-autostash --squash --no-squash --commit --no-commit --edit --no-edit --verify --no-verify -t,--tags",
  rebase: "-i,--interactive -x,--exec= --onto= --keep-base --root -s,--strategy= -X,--strategy-option= --abort --continue --skip --quit --edit-todo --show-current-patch --autosquash --no-autosquash --autostash --no-autostash -f,--force-rebase --no-ff --ff -q,--quiet -v,--verbose -n,--no-stat --stat --no-verify --verify --signoff --committer-date-is-author-date --reset-author-date,--ignore-date --ignore-whitespace --whitespace= --apply -m,--merge --preserve-merges --rerere-autoupdate --empty= --keep-empty --no-keep-empty --update-refs --no-update-refs -S,--gpg-sign? --no-gpg-sign --allow-empty-message -r,--rebase-merges? --no-rebase-merges --fork-point --no-fork-point --reschedule-failed-exec --no-reschedule-failed-exec --reapply-cherry-picks --no-reapply-cherry-picks -C#",
  log: "-n,--max-count= --output= --format= --pretty? --since= --until= --author= --grep= -p,--patch --stat? --oneline --graph --all",
  diff: "--output= --stat? --name-only --name-status --cached --staged --ext-diff --no-ext-diff --textconv --no-textconv -p,--patch -U,--unified=",
  show: "--output= --format= --pretty? --stat? --name-only --ext-diff --no-ext-diff --textconv --no-textconv",
  worktree: "-f,--force -b= -B= --detach --checkout --no-checkout --lock --reason= --orphan --track --no-track --guess-remote --no-guess-remote -q,--quiet -v,--verbose --porcelain -z -n,--dry-run --expire=",
  "update-ref": "-m= -d -z --no-deref --deref --stdin --create-reflog",
  "symbolic-ref": "-q,--quiet -d,--delete -m= --short --recurse --no-recurse",
  reflog: "-n,--dry-run --rewrite --updateref --verbose --expire= --expire-unreachable= --stale-fix --all --single-worktree",
  gc: "-q,--quiet --prune? --no-prune --cruft --aggressive --auto --force --keep-largest-pack",
  prune: "-n,--dry-run -v,--verbose --progress --expire= --exclude-promisor-objects",
  repack: "-a -A -d -f -F -n -q,--quiet -l,--local -b,--write-bitmap-index -i,--delta-islands -k,--keep-unreachable -g,--geometric= -m,--write-midx --cruft --cruft-expiration= --unpack-unreachable= --window= --window-memory= --depth= --threads= --max-pack-size= --pack-kept-objects --keep-pack= --expire-to=",
  rm: "-n,--dry-run -q,--quiet --cached -f,--force -r --ignore-unmatch --sparse --pathspec-from-file= --pathspec-file-nul",
  mv: "-v,--verbose -n,--dry-run -f,--force -k --sparse",
  "read-tree": "--index-output= --empty -v,--verbose --trivial --aggressive --reset --prefix= --exclude-per-directory= -n,--dry-run --no-sparse-checkout --sparse-checkout --debug-unpack --recurse-submodules? -q,--quiet -m -u -i",
  config: "--global --system --local --worktree -f,--file= --blob= --add --get --get-all --unset --unset-all --list,-l --edit,-e --type= --bool --int",
};

const SED = "-n,--quiet,--silent -e,--expression= -f,--file= -i,--in-place? -E,-r,--regexp-extended -s,--separate -z,--null-data -u,--unbuffered -l,--line-length= --posix --debug --follow-symlinks --sandbox -b,--binary";

const PYTHON = "-c=! -m=! -b -B -d -E -h,--help -i -I -O -OO -P -q -s -S -u -v -V,--version -W= -x -X= --check-hash-based-pycs=";

/** Closed tables (issue 39): every option of a program that reads, so that one the table does not know asks. */
const c = (spec: string, extra: Omit<OptionTableSpec, "spec" | "closed"> = {}): OptionTableSpec => ({ spec: `${spec} --help --version`, closed: true, ...extra });

/** Programs whose options the policy knows, by name. */
export const OPTION_TABLE_SPECS: ReadonlyArray<readonly [string, OptionTableSpec]> = [
  ["rm", t("-r,-R,--recursive -f,--force -i -I --interactive? -d,--dir -v,--verbose --one-file-system --no-preserve-root --preserve-root?")],
  [
    "git",
    // git reads its own options exactly (`git --no-pag` is refused), its subcommands' by unique prefix.
    t(GIT_GLOBAL, { stopAtOperand: true, subcommands: GIT_SUBCOMMANDS, exactLong: true }),
  ],
  [
    "find",
    t(
      "-H -L -P -D= -O? -name= -iname= -path= -ipath= -wholename= -iwholename= -regex= -iregex= -regextype= -lname= -ilname= -type= -xtype= -size= -perm= -user= -group= -uid= -gid= -newer= -anewer= -cnewer= -mtime= -mmin= -atime= -amin= -ctime= -cmin= -used= -maxdepth= -mindepth= -printf= -fprint= -fprint0= -fls= -fprintf= -samefile= -inum= -links= -context= -files0-from= -delete -print -print0 -ls -prune -quit -depth -xdev -mount -follow -empty -executable -readable -writable -nouser -nogroup -true -false -not -a -and -o -or -daystart -noleaf -ignore_readdir_race -noignore_readdir_race -exec -execdir -ok -okdir",
      { singleDashLong: true, commandUntil: ["-exec", "-execdir", "-ok", "-okdir"] },
    ),
  ],
  [
    "xargs",
    t(
      "-a,--arg-file= -d,--delimiter= -E,--eof= -I,--replace? -i -L,--max-lines= -l -n,--max-args= -P,--max-procs= -s,--max-chars= --process-slot-var= -0,--null -o,--open-tty -p,--interactive -r,--no-run-if-empty -t,--verbose -x,--exit -e",
      { stopAtOperand: true },
    ),
  ],
  ["cp", t("-a,--archive -r,-R,--recursive -f,--force -i,--interactive -n,--no-clobber -u,--update? -v,--verbose -p --preserve? --no-preserve= -d -L,--dereference -P,--no-dereference -H -l,--link -s,--symbolic-link -b --backup? -S,--suffix= -t,--target-directory= -T,--no-target-directory -x,--one-file-system --parents --sparse= --reflink? --attributes-only --remove-destination --strip-trailing-slashes -Z --context?")],
  ["mv", t("-f,--force -i,--interactive -n,--no-clobber -u,--update? -v,--verbose -b --backup? -S,--suffix= -t,--target-directory= -T,--no-target-directory --strip-trailing-slashes --exchange --no-copy -Z,--context")],
  ["chmod", t("-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --reference= --preserve-root --no-preserve-root -H -L -P")],
  ["chown", t("-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --reference= --from= --preserve-root --no-preserve-root -h,--no-dereference --dereference -H -L -P")],
  ["chgrp", t("-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --reference= --preserve-root --no-preserve-root -h,--no-dereference --dereference -H -L -P")],
  ["sed", t(SED)],
  ["gsed", t(SED)],
  [
    "tar",
    t(
      "-c,--create -x,--extract,--get -t,--list -r,--append -u,--update -A,--catenate,--concatenate -d,--diff,--compare --delete -f,--file= -C,--directory= -T,--files-from= -X,--exclude-from= --exclude= -z,--gzip -j,--bzip2 -J,--xz --zstd -a,--auto-compress -v,--verbose -p,--preserve-permissions -P,--absolute-names -h,--dereference -k,--keep-old-files --overwrite --to-command= -I,--use-compress-program= --transform=,--xform= --strip-components= -O,--to-stdout -m,--touch -o --owner= --group= --mode= -N,--newer= --checkpoint? --checkpoint-action= -g,--listed-incremental= -S,--sparse -W,--verify -b,--blocking-factor= -H,--format= -V,--label= --wildcards --no-wildcards --anchored --recursion --no-recursion --remove-files --one-file-system --null",
      { bundledFirst: true },
    ),
  ],
  [
    "curl",
    t(
      "-o,--output= -O,--remote-name --remote-name-all --output-dir= -J,--remote-header-name --create-dirs -d,--data= --data-binary= --data-raw= --data-urlencode= --data-ascii= --json= -F,--form= --form-string= -T,--upload-file= -K,--config= -H,--header= -X,--request= -u,--user= -A,--user-agent= -e,--referer= -b,--cookie= -c,--cookie-jar= -D,--dump-header= --trace= --trace-ascii= --stderr= -w,--write-out= -x,--proxy= -U,--proxy-user= --cacert= --capath= -E,--cert= --key= --url= -m,--max-time= --connect-timeout= --retry= -r,--range= -z,--time-cond= --limit-rate= --resolve= --connect-to= --interface= -Q,--quote= -s,--silent -S,--show-error -f,--fail --fail-with-body -L,--location -k,--insecure -v,--verbose -i,--include -I,--head -G,--get -n,--netrc --netrc-file= -q,--disable --compressed -#,--progress-bar -N,--no-buffer -4,--ipv4 -6,--ipv6 --http1.1 --http2 -Z,--parallel -g,--globoff -l,--list-only -a,--append -R,--remote-time -C,--continue-at= -Y,--speed-limit= -y,--speed-time=",
    ),
  ],
  [
    "wget",
    t(
      "-O,--output-document= -o,--output-file= -a,--append-output= -P,--directory-prefix= -i,--input-file= -B,--base= -e,--execute= --config= -U,--user-agent= --header= --post-data= --post-file= --body-data= --body-file= --method= --user= --password= -t,--tries= -T,--timeout= -w,--wait= -Q,--quota= -l,--level= -A,--accept= -R,--reject= -D,--domains= -x,--force-directories -nd,--no-directories -nH,--no-host-directories -r,--recursive -m,--mirror -p,--page-requisites -k,--convert-links -c,--continue -N,--timestamping -q,--quiet -v,--verbose -nv,--no-verbose -b,--background -S,--server-response --spider --no-check-certificate -np,--no-parent --load-cookies= --save-cookies= --ca-certificate= --certificate= --private-key= --use-askpass?",
      { singleDashLong: false },
    ),
  ],
  [
    "rsync",
    t(
      "-a,--archive -r,--recursive -R,--relative -v,--verbose -q,--quiet -z,--compress -u,--update -n,--dry-run -l,--links -L,--copy-links -p,--perms -t,--times -g,--group -o,--owner -D -H,--hard-links -x,--one-file-system -c,--checksum -P -h,--human-readable -e,--rsh= --rsync-path= --delete --delete-before --delete-after --delete-during --delete-excluded --remove-source-files --exclude= --include= --exclude-from= --include-from= --files-from= -f,--filter= --backup-dir= --suffix= -b,--backup -T,--temp-dir= --partial --progress --stats --password-file= --log-file= --port= --chmod= --chown= --info= --debug= -i,--itemize-changes -W,--whole-file --inplace --append --append-verify -S,--sparse --bwlimit= --timeout= --contimeout= -0,--from0 -s,--protect-args --list-only --existing --ignore-existing -C,--cvs-exclude",
    ),
  ],
  ["dd", t("")],
  ["sort", t("-o,--output= -t,--field-separator= -k,--key= -S,--buffer-size= -T,--temporary-directory= --parallel= --files0-from= --compress-program= --batch-size= -b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --debug --sort= --random-source=")],
  ["grep", t("-e,--regexp= -f,--file= -r,--recursive -R,--dereference-recursive -i,--ignore-case -v,--invert-match -w -x -c,--count -l,--files-with-matches -L,--files-without-match -n,--line-number -h,--no-filename -H,--with-filename -o,--only-matching -q,--quiet,--silent -s,--no-messages -E,--extended-regexp -F,--fixed-strings -G,--basic-regexp -P,--perl-regexp -a,--text -I -z,--null-data -Z,--null -m,--max-count= -A,--after-context= -B,--before-context= -C,--context= --include= --exclude= --exclude-dir= --exclude-from= --color? --colour? --label= -d,--directories= -D,--devices= --binary-files= --line-buffered -b,--byte-offset -T,--initial-tab -U,--binary")],
  ["ls", t("-R,--recursive -a,--all -A,--almost-all -l -h,--human-readable -1 -d,--directory -F,--classify? -t -S -r,--reverse -i,--inode -s,--size -n,--numeric-uid-gid -g -o -G -L,--dereference -H --color? -I,--ignore= --hide= -w,--width= --sort= --time= --format= -T,--tabsize= --block-size= --time-style= --indicator-style= --quoting-style= -Q -q -b -c -u -U -v -x -X -Z -k -p -m -N -C -D -f --full-time --group-directories-first")],
  ["zip", t("-r,--recurse-paths -R -q,--quiet -v -j,--junk-paths -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -x,--exclude= -i,--include= -e,--encrypt -P,--password= -m,--move -u,--update -f,--freshen -d,--delete -y,--symlinks -@ -D -T,--test -o,--latest-time -b= -n,--suffixes= -t= -tt= -Z,--compression-method= -O,--output-file= -s,--split-size= -FS")],
  ["unzip", t("-d= -o -n -q -qq -j -l -t -v -p -c -x= -P= -a -aa -b -C -L -X -u -f -U -V")],
  ["ssh", t("-B= -b= -c= -D= -E= -e= -F= -I= -i= -J= -L= -l= -m= -O= -o= -p= -Q= -R= -S= -W= -w= -4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y", { stopAtOperand: true })],
  ["sftp", t("-B= -b= -c= -D= -F= -i= -J= -l= -o= -P= -R= -S= -s= -X= -1 -4 -6 -A -a -C -f -N -p -q -r -v")],
  ["scp", t("-r -p -q -v -C -3 -4 -6 -A -B -O -R -T -P= -i= -o= -F= -c= -l= -J= -S= -D= -X=")],
  ["perl", t("-e= -E= -i? -I= -M= -m= -l# -0# -n -p -a -F= -c -s -T -t -u -U -w -W -X -x? -d? -D= -C# -v -V? -h -S", { stopAtOperand: true })],
  ["ruby", t("-e= -I= -r= -C= -E,--encoding= -F= -i? -l -n -p -a -c -d,--debug -s -S -v,--verbose -w -W? -x? -y,--yydebug -0# -K= -T? -h,--help --version --enable= --disable= --jit", { stopAtOperand: true })],
  ["node", t("-e,--eval= -p,--print? -r,--require= --import= --loader= --experimental-loader= -i,--interactive -c,--check --input-type= --inspect? --inspect-brk? --test --watch --no-warnings --enable-source-maps --max-old-space-size= --stack-size= -v,--version -h,--help --env-file= --conditions=,-C=", { stopAtOperand: true })],
  ["php", t("-r= -f= -B= -R= -F= -E= -c= -d= -n -a -l -s -h -i -m -v -z= -t= -S=", { stopAtOperand: true })],
  ["lua", t("-e= -l= -i -v -E -W", { stopAtOperand: true })],
  ["awk", t("-f,--file= -v,--assign= -F,--field-separator= -e,--source= -i,--include= -E,--exec= -l,--load= -b -c -d? -D? -g -M -n -N -O -p? -P -r -s -S,--sandbox -t -V -L? -o?", { stopAtOperand: true })],
  ["sh", t("-c -s -e -x -u -v -n -f -a -b -h -i -l -m -p -r -t -C -E -H -T -B -P -k -o= +o= -O= +O= --rcfile= --init-file= --login --norc --noprofile --posix --restricted --verbose --version --debugger --dump-strings --noediting --pretty-print", { stopAtOperand: true })],
  ["install", t("-b --backup? -c -C,--compare -d,--directory -D -g,--group= -m,--mode= -o,--owner= -p,--preserve-timestamps -s,--strip --strip-program= -S,--suffix= -t,--target-directory= -T,--no-target-directory -v,--verbose -Z --context?")],
  ["patch", t("-o,--output= -d,--directory= -i,--input= -p,--strip= -r,--reject-file= -B,--prefix= -b,--backup -R,--reverse -N,--forward -f,--force -s,--silent,--quiet -t,--batch -u,--unified -c,--context -E,--remove-empty-files --dry-run -F,--fuzz= -V,--version-control= -z,--suffix= -Y,--basename-prefix= -D,--ifdef= -l,--ignore-whitespace -n,--normal -e,--ed -g,--get= --merge? --posix --verbose --binary")],
  ["truncate", t("-c,--no-create -o,--io-blocks -r,--reference= -s,--size=")],
  ["split", t("-a,--suffix-length= --additional-suffix= -b,--bytes= -C,--line-bytes= -d --numeric-suffixes? -x --hex-suffixes? -e,--elide-empty-files --filter= -l,--lines= -n,--number= -t,--separator= -u,--unbuffered --verbose")],
  ["tee", t("-a,--append -i,--ignore-interrupts -p --output-error?")],
  ["touch", t("-a -c,--no-create -d,--date= -f -h,--no-dereference -m -r,--reference= -t= --time=")],
  ["mkdir", t("-m,--mode= -p,--parents -v,--verbose -Z --context?")],
  ["ln", t("-b --backup? -d,-F,--directory -f,--force -i,--interactive -L,--logical -n,--no-dereference -P,--physical -r,--relative -s,--symbolic -S,--suffix= -t,--target-directory= -T,--no-target-directory -v,--verbose")],
  ["npm", t("--prefix= -w,--workspace= --workspaces -ws -g,--global --registry= --loglevel= -s,--silent -q,--quiet -d -dd -ddd --userconfig= --globalconfig= --cache= --script-shell= --node-options= -C= --include= --omit= -D,--save-dev -E,--save-exact -O,--save-optional -P,--save-prod --no-save -f,--force --dry-run --json --ignore-scripts --if-present -y,--yes --tag= --otp= --access= --before= --foreground-scripts")],
  ["pnpm", t("-C,--dir= -F,--filter= -w,--workspace-root -r,--recursive --reporter= -s,--silent --aggregate-output --parallel --stream --workspace-concurrency= --config= -D,--save-dev -P,--save-prod -O,--save-optional -E,--save-exact -g,--global --ignore-scripts --frozen-lockfile --no-frozen-lockfile --prefer-offline --offline --if-present --dry-run --tag= --otp= --access= --no-git-checks --resume-from= --report-summary --shell-mode -c --fail-if-no-match --changed-files-ignore-pattern= --test-pattern= --loglevel=")],
  ["docker", t("-H,--host= -c,--context= --config= -D,--debug -l,--log-level= --tls --tlsverify --tlscacert= --tlscert= --tlskey= -f,--force -a,--all -q,--quiet -v,--volume= -e,--env= --env-file= -p,--publish= -P,--publish-all -w,--workdir= -u,--user= --name= --network= --entrypoint= --rm -d,--detach -i,--interactive -t,--tty --privileged --cap-add= --cap-drop= --security-opt= --pid= --ipc= --mount= --platform= --pull= --restart= --label= --filter= --format= --volumes --build-arg= --target= --file= --tag=")],
  ["kubectl", t("-n,--namespace= --context= --kubeconfig= -s,--server= --cluster= --user= --token= --as= --as-group= -v= --request-timeout= --insecure-skip-tls-verify --certificate-authority= --client-certificate= --client-key= -A,--all-namespaces -o,--output= -l,--selector= -f,--filename= -c,--container= -i,--stdin -t,--tty --force --grace-period= --all --cascade? --dry-run? -R,--recursive --field-selector= --show-labels -w,--watch --overwrite --record")],
  ["cargo", t("-C= --manifest-path= -Z= --config= --color= -v,--verbose -q,--quiet --offline --frozen --locked -p,--package= --workspace --all --release -r --target= --target-dir= --features= -F= --all-features --no-default-features -j,--jobs= --bin= --example= --test= --bench= --lib --bins --examples --tests --benches --all-targets --profile= --message-format= --keep-going --no-run --no-fail-fast --doc", { plusWords: true })],
  ...["python", "python2", "python3"].map((name) => [name, t(PYTHON, { stopAtOperand: true })] as const),
  // Programs that read, with every option they take (their --help): -o of tree writes, -C of file writes, -s of date sets the clock.
  ["tree", c("-a -d -l -f -x -L= -R -P= -I= --gitignore --gitfile= --ignore-case --matchdirs --metafirst --prune --info --infofile= --noreport --charset= --filelimit= -o= -q -N -Q -p -u -g -s -h --si --du -D --timefmt= --inodes --device -F -v -t -c -U -r --dirsfirst --filesfirst --sort= -i -A -S -n -C -X -J -H= -T= --nolinks --hintro= --houtro= --fromfile --fromtabfile --fflinks --opt-toggle")],
  ["file", c("-v -m,--magic-file= -z,--uncompress -Z,--uncompress-noreport -b,--brief -c,--checking-printout -e,--exclude= --exclude-quiet= -f,--files-from= -F,--separator= -i,--mime --apple --extension --mime-type --mime-encoding -k,--keep-going -l,--list -L,--dereference -h,--no-dereference -n,--no-buffer -N,--no-pad -0,--print0 -p,--preserve-date -P,--parameter= -r,--raw -s,--special-files -S,--no-sandbox -C,--compile -d,--debug")],
  ["date", c("-d,--date= --debug -f,--file= -I,--iso-8601? --resolution -R,--rfc-email --rfc-3339= -r,--reference= -s,--set= -u,--utc,--universal")],
  ["csplit", t("-b,--suffix-format= -f,--prefix= -k,--keep-files --suppress-matched -n,--digits= -s,--quiet,--silent -z,--elide-empty-files --help --version")],
  ["shuf", c("-e,--echo -i,--input-range= -n,--head-count= -o,--output= --random-source= -r,--repeat -z,--zero-terminated")],
  ["mkfifo", c("-m,--mode= -Z --context?")],
  ["fallocate", c("-c,--collapse-range -d,--dig-holes -i,--insert-range -l,--length= -n,--keep-size -o,--offset= -p,--punch-hole -z,--zero-range -x,--posix -v,--verbose -h -V")],
  ["chattr", t("-R -V -f -p= -v=")],
  ["setfacl", t("-m,--modify= -M,--modify-file= -x,--remove= -X,--remove-file= -b,--remove-all -k,--remove-default --set= --set-file= --mask -n,--no-mask -d,--default --restore= --test -R,--recursive -L,--logical -P,--physical -v,--version -h,--help")],
  ["cpio", t("-o,--create -i,--extract -p,--pass-through -t,--list -a,--reset-access-time -A,--append -b,--swap -B -c -C,--io-size= -d,--make-directories -D,--directory= -E,--pattern-file= -f,--nonmatching -F,--file= -H,--format= -I= -L,--dereference -l,--link -m,--preserve-modification-time -M,--message= -n,--numeric-uid-gid -O= -r,--rename -R,--owner= -s,--swap-bytes -S,--swap-halfwords -u,--unconditional -v,--verbose -V,--dot -0,--null --absolute-filenames --no-absolute-filenames --no-preserve-owner --only-verify-crc --quiet --rsh-command= --sparse --to-stdout --force-local --device-independent,--reproducible --ignore-devno --renumber-inodes --help --version", { bundledFirst: false })],
  // ripgrep, every option of its --help (14.x): one it does not list asks; -g/--iglob/-t decide which files a tree read reads.
  [
    "rg",
    c(
      "-A,--after-context= -B,--before-context= -C,--context= -a,--text -b,--byte-offset -c,--count --count-matches --column --no-column --color= --colors= --context-separator= --no-context-separator " +
        "-d,--max-depth,--maxdepth= --debug --trace --dfa-size-limit= -E,--encoding= --no-encoding --engine= -e,--regexp= -f,--file= --field-context-separator= --field-match-separator= --files --files-with-matches,-l " +
        "--files-without-match -F,--fixed-strings --no-fixed-strings -L,--follow --no-follow --generate= -g,--glob= --glob-case-insensitive --no-glob-case-insensitive -H,--with-filename -I,--no-filename " +
        "--heading --no-heading -.,--hidden --no-hidden --hostname-bin= --hyperlink-format= --iglob= -i,--ignore-case --ignore-file= --ignore-file-case-insensitive --no-ignore-file-case-insensitive " +
        "--include-zero --no-include-zero -v,--invert-match --no-invert-match --json --no-json --line-buffered --no-line-buffered --block-buffered --no-block-buffered -n,--line-number -N,--no-line-number " +
        "-x,--line-regexp -M,--max-columns= --max-columns-preview --no-max-columns-preview -m,--max-count= --max-filesize= --mmap --no-mmap -U,--multiline --no-multiline --multiline-dotall --no-multiline-dotall " +
        "--no-config --no-ignore --ignore --no-ignore-dot --ignore-dot --no-ignore-exclude --ignore-exclude --no-ignore-files --ignore-files --no-ignore-global --ignore-global --no-ignore-messages --ignore-messages " +
        "--no-ignore-parent --ignore-parent --no-ignore-vcs --ignore-vcs --no-messages --messages --no-require-git --require-git --no-unicode --unicode -0,--null --null-data --one-file-system --no-one-file-system " +
        "-o,--only-matching --passthru,--passthrough --path-separator= -P,--pcre2 --no-pcre2 --pcre2-version --auto-hybrid-regex --no-auto-hybrid-regex --pre= --no-pre --pre-glob= -p,--pretty -q,--quiet " +
        "--regex-size-limit= -r,--replace= -z,--search-zip --no-search-zip -S,--smart-case --no-smart-case -s,--case-sensitive --sort= --sortr= --sort-files --no-sort-files --stats --no-stats --stop-on-nonmatch " +
        "-j,--threads= --trim --no-trim -t,--type= -T,--type-not= --type-add= --type-clear= --type-list -u,--unrestricted -V --vimgrep -w,--word-regexp --no-word-regexp --binary --no-binary --crlf --no-crlf -h",
    ),
  ],
  // systemctl's options that take a value, so that the verb after them is read as the verb (`systemctl -p Id show x`).
  ["systemctl", t("-H,--host= -M,--machine= -t,--type= -p,--property= -P= -s,--signal= -n,--lines= -o,--output= --state= --job-mode= --kill-whom= --kill-value= --root= --image= --what= --message= --preset-mode= --timestamp= --legend= --check-inhibitors= --boot-loader-menu= --boot-loader-entry= --reboot-argument= --drop-in= --when=")],
  ["ssh-add", c("-c -C -D -d -E= -e= -H= -h= -K -k -L -l -q -S= -s= -T -t= -v -X -x")],
];

/**
 * ripgrep's file types (`rg -t py`) as its `--type-list` prints them, for the types whose globs are
 * known here: a type not listed (or one `--type-add` defines) may name any file, hidden ones too.
 */
export const RIPGREP_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: ["*.[ChH]", "*.cc", "*.cpp", "*.cxx", "*.hh", "*.hpp", "*.hxx", "*.inl", "*.[ChH].in", "*.cc.in", "*.cpp.in", "*.cxx.in", "*.hh.in", "*.hpp.in", "*.hxx.in"],
  cs: ["*.cs"],
  css: ["*.css", "*.scss"],
  go: ["*.go"],
  html: ["*.htm", "*.html", "*.ejs"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"],
  json: ["*.json", "composer.lock", "*.sarif"],
  kotlin: ["*.kt", "*.kts"],
  lua: ["*.lua"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"],
  py: ["*.py", "*.pyi"],
  python: ["*.py", "*.pyi"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", "Gemfile", ".irbrc", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  scala: ["*.scala", "*.sbt"],
  sql: ["*.sql", "*.psql"],
  swift: ["*.swift"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  typescript: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  txt: ["*.txt"],
  vue: ["*.vue"],
  xml: ["*.xml", "*.xml.dist"],
  yaml: ["*.yaml", "*.yml"],
};

/** Programs that read their options with another's table. */
export const OPTION_TABLE_ALIASES: ReadonlyArray<readonly [alias: string, of: string]> = [
  ...["bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash"].map((name) => [name, "sh"] as const),
  ["nodejs", "node"],
  ["gawk", "awk"],
  ["mawk", "awk"],
  ["nawk", "awk"],
  ["busybox-awk", "awk"],
  ["bsdtar", "tar"],
  ["gtar", "tar"],
];
