import { NETWORK_CLIS } from "./_network-clis.js";

/**
 * The inventory: what toolhost knows of programs, as data. Each entry is the programs it names
 * (separated by spaces) and a row in the grammar of `_row.ts`:
 * `KIND[:ROLE] | clause | clause`. The README's table "The program inventory" lists every row
 * as written here (a test reads both). A policy file or package adds rows with `programs`.
 *
 * Kinds: read-only, writes (the paths it is given), runner (runs the command in its arguments),
 * runs-code (an interpreter, a shell, a build tool, an editor or debugger with a command
 * language), network (client, server, uploader, tunnel, publisher), installs (installs or fetches
 * packages and runs them), system (privileges, services, schedulers, containers, clusters,
 * clouds, the system's packages, other processes, secret stores), destroys.
 */
export const PROGRAMS: ReadonlyArray<readonly [names: string, row: string]> = [
  // Reading and listing: what they print is the files' contents, or only names and metadata.
  ["cat tac nl head tail more most pg", "read-only"],
  ["less", "read-only:pager | script --lesskey-src,-k"],
  ["bat batcat", "read-only | program --pager"],
  ["ls dir vdir stat fd fdfind locate du df findmnt", "read-only | operands none"],
  // tree -o FILE writes its listing; -R writes 00Tree.html into every folder (tree's manual).
  ["tree", "read-only | operands none | writes -o | reads --infofile,--hintro,--houtro,--gitfile | when -R=writes"],
  ["find", "read-only | operands none | patterns -name,-iname,-path,-ipath,-regex,-iregex,-wholename,-iwholename,-lname,-ilname,-type,-xtype,-perm,-user,-group,-printf,-fprintf"],
  ["wc file cksum sum b2sum md5sum sha1sum sha224sum sha256sum sha384sum sha512sum", "read-only"],
  ["od hexdump strings base64 base32 basenc", "read-only"],
  ["xxd", "read-only | writes-operands second"],
  ["uniq", "read-only | writes-operands second"],
  ["sort", "read-only | writes -o,--output | program --compress-program"],
  ["cut paste join comm column fold fmt expand unexpand rev numfmt pr", "read-only"],
  ["shuf", "read-only | writes -o,--output | reads --random-source"],
  ["diff cmp", "read-only"],
  ["sdiff", "read-only | writes -o,--output"],
  ["diff3", "read-only"],
  ["tr", "read-only | operands none"],
  ["grep egrep fgrep", "read-only | operands after-first -e,--regexp,-f,--file | patterns -e,--regexp,--include,--exclude,--exclude-dir,--label | reads -f,--file"],
  ["rg", "read-only | operands after-first -e,--regexp,-f,--file,--files,--type-list | patterns -e,--regexp,-g,--glob,--iglob,-t,--type,-T,--type-not | reads -f,--file,--ignore-file | program --pre,--hostname-bin"],
  ["ag ack", "read-only | operands after-first"],
  ["jq gojq jaq", "read-only | operands after-first -f,--from-file | patterns --arg,--argjson | reads -f,--from-file,--rawfile,--slurpfile"],
  ["yq", "read-only | operands after-first | when -i,--inplace=writes"],
  ["xmllint tidy", "read-only"],
  // xq and tomlq are jq over XML and TOML (their env is the environment: judge/_environment.ts); -i rewrites the files (judge/_documents.ts asks).
  ["xq tomlq", "read-only | operands after-first -f,--from-file | patterns --arg,--argjson | reads -f,--from-file,--rawfile,--slurpfile"],
  // miller: its verbs read; put and filter are its DSL (system, exec), tee and split write files; --prepipe runs a command; -s reads more options from a file.
  ["mlr miller", "read-only | program --prepipe,--prepipex | script --load,--mload,-s | goals put,filter,tee,split,repl=runs-code:interpreter"],
  // gron reads a file, or fetches a URL; dasel reads -f (put and delete rewrite it).
  ["gron", "read-only | goals http://*,https://*,HTTP://*,HTTPS://*=network:client"],
  ["dasel", "read-only | operands none | reads -f,--file | writes -o,--out | sub put,delete=unknown"],
  // sqlite-utils: its readers read the database (its second word); its other commands write it; Python given with --convert / --functions / convert runs.
  ["sqlite-utils", "writes | writes-operands second | sub tables,views,schema,rows,indexes,triggers,dump,query,search,--version=read-only install,uninstall=installs:installer convert=runs-code:interpreter | when --convert,--functions,--import,--load-extension,--code=runs-code:interpreter"],
  // ffmpeg writes its outputs (every operand, as it has no option table) and reads -i; protocols, devices and filters that touch files are judged in judge/_documents.ts.
  ["ffmpeg", "writes | writes-operands all | reads -i,-attach,-filter_script,-filter_complex_script | writes -vstats_file,-passlogfile,-progress,-sdp_file,-hls_segment_filename,-segment_list,-dump_attachment"],
  ["ffprobe", "read-only | reads -i | writes -o"],
  // ImageMagick: identify reads; convert / magick write their last operand, mogrify every operand (into -path); coders and @files are judged in judge/_documents.ts.
  ["magick convert montage composite compare", "writes | writes-operands last | reads -font,-texture,-tile,-profile | writes -write | script -script"],
  ["mogrify", "writes | writes-operands all | reads -font,-texture,-tile,-profile | writes -path,-write"],
  ["identify", "read-only | reads -font"],
  ["conjure", "runs-code:interpreter"],
  // pandoc converts: -o writes; its includes, templates and data read; filters and custom readers / writers (.lua) run code; a URL input is fetched.
  ["pandoc", "read-only | writes -o,--output,--extract-media,--log | reads -H,--include-in-header,-B,--include-before-body,-A,--include-after-body,--template,--reference-doc,-c,--css,--bibliography,--csl,--citation-abbreviations,--syntax-definition,--abbreviations,--epub-cover-image,--epub-metadata,--epub-embed-font,--metadata-file,--data-dir,--resource-path | program --pdf-engine | script -L,--lua-filter,-F,--filter,--pdf-engine-opt,-d,--defaults | when --self-contained,--embed-resources=network:client | goals http://*,https://*,HTTP://*,HTTPS://*=network:client"],
  ["awk gawk mawk nawk", "read-only | operands after-first -f,--file | script -f,--file"],
  ["sed gsed", "read-only | operands after-first -e,--expression,-f,--file | patterns -e,--expression | script -f,--file"],
  ["echo printf", "read-only | operands none"],
  ["true false : test [ expr seq sleep yes", "read-only | operands none"],
  ["basename dirname realpath readlink pathchk", "read-only | operands none"],
  ["pwd which whereis type hash date cal uname arch whoami id groups logname users who w last uptime", "read-only | operands none"],
  ["tty locale getconf nproc free vmstat iostat mpstat lscpu lsblk lsusb lspci lsmod lshw", "read-only | operands none"],
  ["hostname hostnamectl", "read-only | operands none | sub *=system:privileges"],
  ["ps pgrep pidof pstree top htop btop atop lsof fuser", "read-only | operands none"],
  ["printenv", "read-only | operands none"],
  ["env", "runner:wrapper"],
  ["man", "read-only:pager | operands none | program -P,--pager,-H,--html"],
  ["info apropos whatis tldr help", "read-only | operands none"],
  ["nm objdump readelf size", "read-only"],
  ["getent", "read-only | operands none"],
  ["journalctl dmesg", "read-only | operands none"],
  ["zcat zless zmore zgrep bzcat bzless xzcat xzless zstdcat lz4cat", "read-only"],
  ["openssl", "read-only | sub s_client,s_server,s_time=network:client | writes -out,-keyout | patterns -subj,-addext"],
  // Key generators: a key they write anew is a write, not a read of a secret (one that exists is read too: `ssh-keygen -y -f KEY`).
  ["ssh-keygen", "writes | writes -f"],
  // The agent's keys: -l / -L list them (fingerprints, public keys); adding, removing or locking is the secret store.
  ["ssh-add", "system:secrets | when -l,-L=read-only -D,-d,-x,-X,-s,-e,-c,-t,-k,-K,-T,-H,-h=system:secrets"],
  ["age-keygen", "writes | writes -o,--output"],
  ["gpg gpg2", "system:secrets | when --list-keys,-k,--list-public-keys,--verify,--version,--fingerprint=read-only"],
  // age encrypting to a recipient or a passphrase writes its output; decrypting reads a private key.
  ["age rage", "system:secrets | writes -o,--output | when -r,--recipient,-R,--recipients-file,-p,--passphrase=writes -d,--decrypt,-i,--identity,-j=system:secrets"],
  ["pass gopass op bw lpass keepassxc-cli secret-tool security infisical chamber", "system:secrets"],
  // vault version / status print the client's version and the server's seal state, no secret.
  ["vault", "system:secrets | sub version,status=read-only"],
  ["doppler", "system:secrets | sub run=runner:wrapper"],
  ["sops", "system:secrets | sub exec-env,exec-file=runner:wrapper"],
  ["aws-vault", "system:secrets | sub exec=runner:wrapper"],
  ["shellcheck hadolint yamllint actionlint markdownlint markdownlint-cli2 pyright", "read-only"],
  // csvkit's readers and printers (csvsql, which writes to databases, and in2csv are not among them); bc's language has no escape to the shell (dc's ! has).
  ["csvlook csvcut csvstat csvgrep csvsort csvjson csvformat csvclean csvjoin csvstack", "read-only | writes -o,--output"],
  ["bc", "read-only"],
  // dc's ! runs a shell command: only expressions without it read (judge/_documents.ts); its files and standard input are code.
  ["dc", "read-only"],
  ["zipinfo getfacl", "read-only"],
  ["modinfo ansible-doc", "read-only | operands none"],
  ["cd pushd popd dirs set shopt unset shift exit return read wait let local declare typeset readonly export umask ulimit jobs history times getopts caller mapfile readarray compgen complete disown logout bind", "read-only | operands none"],
  // trap's command is judged as a command of its own (shell/_builtins.ts); setting it runs nothing.
  ["trap", "read-only | operands none"],
  ["source .", "runs-code:shell"],
  ["fc", "runs-code:editor"],
  // Writing the paths they are given (their files are judged by the write rules).
  ["cp mv ln install mkdir touch rmdir rm unlink truncate tee mktemp link", "writes"],
  ["chmod chown chgrp chattr setfacl", "writes"],
  ["mkfifo fallocate", "writes | writes-operands all"],
  ["dd patch split csplit", "writes"],
  // util-linux's `rename FROM TO FILE…`, and perl-rename (its expression is Perl: read in shell/_effects.ts).
  ["rename prename perl-rename file-rename", "writes"],
  ["shred", "destroys | writes-operands all"],
  ["tar bsdtar gtar", "writes | program --to-command,--use-compress-program,-I,--rsh-command,--info-script,-F,--new-volume-script"],
  ["zip", "writes | program -TT,--unzip-command"],
  ["unzip 7z 7za 7zr unrar rar", "writes"],
  // cpio -t lists an archive; -i extracts it where its names say, -o reads the files named on its input.
  ["cpio", "writes | when -t,--list=read-only"],
  ["gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 unlz4 brotli lzma unlzma compress uncompress", "writes | writes-operands all | when -c,--stdout,--to-stdout,-l,--list,-t,--test=read-only"],
  ["sqlite3", "writes | writes-operands first"],
  // duckdb's SQL reads and writes any file (read_csv, COPY … TO) and installs extensions: its SQL is code.
  ["duckdb", "runs-code:interpreter"],
  ["gofmt", "read-only | when -w=writes"],
  ["black isort autopep8 yapf autoflake", "writes | when --check,--diff=read-only"],
  ["ruff", "read-only | when --fix=writes | sub format=writes"],
  ["biome oxlint dprint", "read-only | when --write,--apply,--fix=writes"],
  ["codespell", "read-only | when -w,--write-changes=writes"],
  ["clang-format rustfmt", "read-only | when -i=writes"],
  // Runners and wrappers: the command they run is judged (see the README's "Bash commands").
  ["nice nohup timeout gtimeout time command builtin exec stdbuf ionice setsid taskset flock watch xargs parallel unbuffer chronic ifne catchsegv", "runner:wrapper"],
  ["strace ltrace valgrind", "runner:wrapper"],
  // Profilers and compiler caches: the command they are given runs; attaching to a process reads another's memory.
  ["perf", "system:processes | sub stat,record,trace,mem,c2c,sched.record,lock.record,kmem.record,kwork.record=runner:wrapper list,report,annotate,diff,evlist,version,--version,help=read-only | when -p,--pid,-t,--tid,-a,--all-cpus=system:processes | writes -o,--output | program --objdump,--addr2line"],
  ["py-spy", "system:processes | sub record,top=runner:wrapper | when -p,--pid=system:processes | writes -o,--output | runs after-dash"],
  ["ccache sccache", "runner:wrapper"],
  ["run-parts", "runs-code:interpreter | when --test,--list=read-only"],
  ["script", "runner:wrapper"],
  ["tmux screen", "runner:wrapper"],
  ["busybox", "runner:wrapper"],
  ["torsocks proxychains proxychains4", "runner:wrapper"],
  ["fakeroot firejail", "runner:wrapper"],
  ["hyperfine", "runner:wrapper | runs shell-operands | program -p,--prepare,-c,--cleanup,-s,--setup,--conclude"],
  ["concurrently", "runner:wrapper | runs shell-operands"],
  ["entr watchexec", "runner:wrapper"],
  ["nodemon", "runs-code:build"],
  ["cross-env env-cmd dotenv dotenvx", "runner:wrapper"],
  // direnv allow / deny write the user's list of folders whose .envrc runs in every later shell: the user's settings.
  ["direnv", "read-only | sub exec=runner:wrapper allow,permit,grant,deny,block,revoke,prune=system:settings"],
  ["nix-shell", "installs:installer | program --run,--command"],
  ["npm-run-all run-s run-p", "runs-code:build"],
  // Interpreters and shells: they run code the policy cannot read.
  ["python python2 python3 pypy pypy3", "runs-code:interpreter"],
  ["ipython jupyter", "runs-code:interpreter"],
  ["node nodejs", "runs-code:interpreter | when --test=runs-code:build"],
  ["ts-node tsx esno vite-node", "runs-code:interpreter"],
  ["deno", "runs-code:interpreter | sub fmt=writes lint,check,info,doc,--version=read-only install,add,cache=installs:installer test,bench,task,compile=runs-code:build"],
  ["bun", "runs-code:build | sub install,i,add,a,update,remove,rm=installs:installer x=installs:fetch-run publish=network:publisher pm=read-only"],
  ["perl ruby lua luajit Rscript R julia osascript tclsh wish", "runs-code:interpreter"],
  // php -v / -m / --ini alone print its version, modules and ini files (not -i: phpinfo() prints the environment).
  ["php", "runs-code:interpreter | sub -v,--version,-m,--modules,--ini=read-only"],
  ["java jshell scala kotlin groovy clojure erl escript elixir iex ghci runghc runhaskell mono", "runs-code:interpreter"],
  // swift and dotnet: a first word is a subcommand of the toolchain, not a script of the workspace.
  ["swift", "runs-code:interpreter | sub build,test,run,package=runs-code:build package-registry,package-registry.publish=network:publisher package-registry.login,package-registry.logout=system:secrets package.describe,package.show-dependencies,package.dump-package,--version,-version=read-only"],
  [
    "dotnet",
    "runs-code:interpreter | sub build,test,run,format,pack,publish,restore,clean,msbuild,watch,new,add,remove,sln,list,build-server=runs-code:build nuget.push,nuget.delete=network:publisher tool.install,tool.update,tool.uninstall,tool.restore,tool.run,workload.install,workload.update,workload.uninstall,workload.repair,workload.restore,new.install,new.uninstall=installs:installer dev-certs,nuget.add,nuget.update,nuget.enable,nuget.disable,nuget.remove,nuget.locals=system:settings tool.list,tool.search,workload.list,workload.search,nuget.list,nuget.verify,sdk.check,help,--info,--list-sdks,--list-runtimes,--version=read-only",
  ],
  // WebAssembly runtimes: `wasmtime build/app.wasm` runs the workspace's module (the project's code); `serve` is a server.
  ["wasmtime wasmer", "runs-code:interpreter | sub run=runs-code:interpreter serve=network:server"],
  ["sh bash dash zsh ksh mksh ash yash posh rbash fish busybox-sh ksh93 lksh oksh loksh pdksh hush sash osh bosh jsh", "runs-code:shell"],
  // Shells of other languages: their code is not parsed (see `FOREIGN_SHELLS`).
  ["csh tcsh pwsh powershell nu nushell elvish xonsh rc es ion ysh oil murex hilbish ngs oh closh scsh cmd", "runs-code:shell"],
  ["vi vim nvim view ex ed emacs nano pico micro joe kak hx helix code subl mate", "runs-code:editor"],
  ["gdb lldb pdb", "runs-code:debugger"],
  ["xdg-open open gio", "runs-code:editor"],
  // The project's build and test runners: they run the repository's code.
  ["make gmake just task ninja meson cmake ctest scons rake invoke nox tox mage", "runs-code:build"],
  // Their operands are targets (labels of the workspace, `//src/...`), not files.
  ["bazel bazelisk buck buck2 pants", "runs-code:build | operands none"],
  ["mvn mvnw", "runs-code:build | goals deploy,deploy:*,release:perform,release:prepare,site-deploy,site:deploy,nexus-staging:*,gpg:sign-and-deploy-file=network:publisher"],
  ["gradle gradlew", "runs-code:build | goals publish,publish*,upload*,artifactoryPublish,bintrayUpload,closeAndReleaseRepository,releaseRepository=network:publisher"],
  ["sbt sbtn", "runs-code:build | goals publish,publishSigned,+publish,+publishSigned,release,sonatypeRelease,sonatypeBundleRelease=network:publisher"],
  ["lein", "runs-code:build | goals deploy,release=network:publisher"],
  ["ant", "runs-code:build"],
  // mix runs the project's tasks (`mix do` runs several, so its tasks are goals): hex's publishing and account tasks publish, fetching deps and installing archives install, dropping the database destroys; -e is code.
  ["mix", "runs-code:build | when -e,--eval=runs-code:interpreter | goals hex.publish*,hex.retire*,hex.owner*,hex.user*,hex.organization*,hex.repo*,hex.config*=network:publisher deps.get*,deps.update*,deps.unlock*,archive.install*,escript.install*,local.*=installs:installer ecto.drop*,ecto.reset*,ecto.rollback*=destroys"],
  // dart and flutter: analyze, test, format, run and compile are the project's build; pub get / upgrade / add install; pub publish publishes; pub token holds credentials.
  ["dart", "runs-code:interpreter | sub analyze,test,format,fix,doc,compile,run,create=runs-code:build pub.get,pub.upgrade,pub.downgrade,pub.add,pub.remove,pub.cache,pub.global=installs:installer pub.publish,pub.lish=network:publisher pub.token=system:secrets pub.deps,pub.outdated,info,--version=read-only"],
  ["flutter", "runs-code:build | sub pub.get,pub.upgrade,pub.downgrade,pub.add,pub.remove,pub.cache,pub.global,upgrade,downgrade,channel,precache,install=installs:installer pub.publish,pub.lish=network:publisher pub.token=system:secrets config=system:settings doctor,devices,pub.deps,pub.outdated,--version=read-only"],
  // TeX: a document's build (its \input reads any file, as the project's build reads); shell escape or a configuration line runs commands; code given on the line is judged in judge/_documents.ts.
  ["pdflatex latex xelatex lualatex tex etex pdftex luatex xetex lualatex-dev pdflatex-dev", "runs-code:build | writes -output-directory,--output-directory,-aux-directory,--aux-directory | when -shell-escape,--shell-escape,-enable-write18,--enable-write18,-cnf-line,--cnf-line,-shell-restricted=runs-code:interpreter"],
  // latexmk runs its latexmkrc (Perl) and the engines: -e / -r are Perl; the engine options name commands.
  ["latexmk", "runs-code:build | writes -outdir,-output-directory,-auxdir | when -e,-r,-pdflatex,-latex,-lualatex,-xelatex,-pdflua,-pdfxe,-dvipdf,-ps2pdf,-usepretex,-pretex,-shell-escape,--shell-escape=runs-code:interpreter"],
  ["bibtex bibtex8 biber makeindex", "runs-code:build"],
  ["chktex lacheck", "read-only | writes -o,--output"],
  // kpsewhich finds files; its variable expansions print the environment; -mktex makes fonts (runs programs).
  ["kpsewhich", "read-only | operands none | when -var-value,--var-value,-expand-var,--expand-var,-expand-braces,--expand-braces,-expand-path,--expand-path=system:secrets -mktex,--mktex,-must-exist,--must-exist=runs-code:interpreter"],
  ["gcc cc g++ c++ clang clang++ rustc ld", "runs-code:build | writes -o"],
  ["javac kotlinc", "runs-code:build | writes -d"],
  // zig cc / c++ take the C compilers' -o; build-exe and friends -femit-bin=.
  ["zig", "runs-code:build | writes -o,-femit-bin | sub version,env,targets,zen,--version=read-only fmt=writes fetch=installs:installer"],
  ["tsc", "runs-code:build | when --noEmit,-v,--version,--help=read-only"],
  ["vitest jest mocha ava playwright cypress karma pytest py.test nose2 rspec phpunit", "runs-code:build"],
  ["prove", "runs-code:build | program -e,--exec"],
  ["eslint prettier stylelint tslint standard xo mypy pylint flake8", "runs-code:build"],
  ["turbo nx", "runs-code:build"],
  // lerna version pushes tags and commits; publish publishes: neither is the project's build.
  ["lerna", "runs-code:build | sub publish,version=network:publisher list,ls,ll,la,info,changed,diff=read-only"],
  ["webpack vite rollup esbuild parcel swc babel next nuxt astro svelte-kit", "runs-code:build"],
  ["changeset", "runs-code:build | sub publish=network:publisher status=read-only"],
  // Package managers: installing runs the packages' scripts; their scripts are the project's build
  // (`pack` too: it runs the project's prepack, prepare and postpack scripts).
  [
    "npm",
    "runs-code:build | program --script-shell | sub install,i,in,ins,inst,insta,instal,isnt,isnta,isntal,isntall,ci,clean-install,add,update,up,upgrade,dedupe,rebuild,audit.fix,link,ln=installs:installer exec,x,init,create=installs:fetch-run publish,unpublish,deprecate,dist-tag,owner,access,token,adduser,login,logout,star,team,org,hook=network:publisher ls,list,ll,la,help,config.get,config.list,get,prefix,root,bin,explain,why,fund,query=read-only view,info,show,v,outdated,audit,search,doctor,ping,whoami,dist-tag.ls,dist-tag.list,owner.ls,owner.list,access.list,team.ls,team.list,org.ls=read-only:remote uninstall,remove,rm,r,un,unlink,pkg,cache,prune,shrinkwrap=writes",
  ],
  [
    "pnpm",
    "runs-code:build | sub install,i,add,update,up,upgrade,import,fetch,rebuild,rb,link,ln,patch=installs:installer dlx,create=installs:fetch-run exec=runner:wrapper publish=network:publisher list,ls,ll,la,why,outdated,audit,view,info,show,root,bin,store.path,store.status,config.get,config.list,help,licenses=read-only remove,rm,uninstall,un,unlink,prune=writes",
  ],
  [
    "yarn",
    "runs-code:build | sub install,add,up,upgrade,upgrade-interactive,import,link,rebuild=installs:installer dlx,create=installs:fetch-run exec=runner:wrapper publish,npm.publish=network:publisher list,info,why,outdated,audit,config.get,help,bin,npm.info=read-only remove,unlink=writes",
  ],
  ["npx bunx pnpx uvx", "installs:fetch-run"],
  ["pip pip3", "installs:installer | writes -d,--dest | sub list,show,freeze,check,search,help,config,debug,inspect,hash,--version,-V=read-only index=read-only:remote cache=writes uninstall=system:packages"],
  ["pipx", "installs:installer | sub run=installs:fetch-run list,environment=read-only uninstall,uninstall-all=system:packages"],
  ["uv", "installs:installer | sub run=runner:wrapper tool.run=installs:fetch-run venv,init=writes pip.list,pip.show,pip.freeze,pip.check,tree,version,--version=read-only"],
  ["poetry", "installs:installer | sub run=runner:wrapper shell=runs-code:shell build=runs-code:build publish=network:publisher show,check,env.info,env.list,version,--version,about=read-only"],
  // pdm and hatch: run is the project's runner (as poetry run); build and test the project's build; publish publishes.
  ["pdm", "installs:installer | sub run=runner:wrapper build=runs-code:build publish=network:publisher list,show,info,search,--version=read-only remove=writes"],
  ["hatch", "installs:installer | sub run=runner:wrapper build,test,fmt=runs-code:build publish=network:publisher status,--version,env.show,dep.show=read-only clean=writes"],
  ["pipenv", "installs:installer | sub run=runner:wrapper shell=runs-code:shell graph,--venv,--where=read-only"],
  ["conda mamba micromamba", "installs:installer | sub run=runner:wrapper list,info,search,env.list,--version=read-only"],
  ["gem", "installs:installer | sub push,yank,owner,signin=network:publisher list,search,info,env,contents,which,help=read-only uninstall,cleanup=system:packages"],
  ["bundle bundler", "installs:installer | sub exec=runner:wrapper list,show,check,info,outdated,config=read-only"],
  ["composer", "installs:installer | sub run-script,run,exec,test=runs-code:build show,info,validate,diagnose,outdated,licenses=read-only"],
  ["cargo", "runs-code:build | sub install,add,update,fetch,vendor,generate-lockfile=installs:installer publish,yank,owner,login=network:publisher search,tree,metadata,version,help,locate-project,pkgid,verify-project,--version=read-only fmt,clean,new,init,remove,rm=writes"],
  ["rustup", "installs:installer | sub run=runner:wrapper show,which,--version,component.list,toolchain.list,target.list=read-only"],
  ["go", "runs-code:build | sub get,install,mod.download,mod.tidy,work.sync=installs:installer env,version,list,doc,help,mod.graph,mod.why,mod.verify=read-only fmt,mod.init,mod.edit,clean=writes"],
  ["brew", "installs:installer | sub list,ls,info,search,config,doctor,outdated,deps,uses,--prefix,--cellar,--repository,--cache,--version,leaves=read-only uninstall,remove,rm,cleanup,autoremove,untap,unlink=system:packages services=system:services"],
  ["nix nix-env nix-build", "installs:installer | sub search,show-config,eval,flake.show,flake.metadata,path-info,--version=read-only"],
  ["apt-cache", "system:packages | sub show,showpkg,showsrc,policy,search,depends,rdepends,pkgnames,madison,stats,unmet=read-only"],
  ["apt apt-get aptitude dnf yum zypper pacman apk emerge snap flatpak port pkg", "system:packages | sub list,show,search,policy,info,query,madison,depends,rdepends,--version=read-only"],
  ["dpkg rpm", "system:packages | when -l,--list,-L,--listfiles,-s,--status,-q,--query,-S,--search=read-only"],
  // Network clients, servers, uploaders and tunnels.
  [
    "curl",
    "network:client | when -T,--upload-file,-d,--data,--data-binary,--data-raw,--data-urlencode,--data-ascii,--json,-F,--form,--form-string=network:uploader -X,--request:POST=network:uploader -X,--request:PUT=network:uploader -X,--request:PATCH=network:uploader -X,--request:DELETE=network:uploader",
  ],
  ["wget wget2", "network:client | when --post-data,--post-file,--body-data,--body-file,--method=network:uploader"],
  ["http https xh curlie", "network:client | sub POST,PUT,PATCH,DELETE,post,put,patch,delete=network:uploader | when -f,--form,--raw=network:uploader"],
  ["aria2c axel", "network:client"],
  ["ping ping6 traceroute tracepath mtr dig nslookup host whois", "network:client | operands none"],
  // The machine's own interfaces, routes and sockets: read without the network; what changes them is judged by its verb (judge/_project-code.ts).
  ["ip ifconfig route arp netstat", "read-only | operands none"],
  ["ss", "read-only | operands none | when -K,--kill=system:processes"],
  ["ssh mosh", "network:client | when -R,-L,-D,-w,-W=network:tunnel | reads -i,-F"],
  ["scp", "network:client | program -S"],
  ["rsync", "network:client"],
  ["sftp", "network:uploader | program -S"],
  ["ftp lftp tftp ncftp smbclient", "network:uploader"],
  ["telnet", "network:client"],
  ["nc ncat netcat socat websocat", "network:tunnel"],
  ["ngrok cloudflared bore lt localtunnel frpc chisel tailscale zrok", "network:tunnel"],
  ["http-server serve live-server browser-sync", "network:server"],
  // Python modules, as `python -m MODULE` runs them.
  ["http.server SimpleHTTPServer", "network:server"],
  ["json.tool pydoc tabnanny site platform sysconfig", "read-only"],
  ["venv virtualenv py_compile compileall zipfile tarfile", "writes"],
  ["unittest doctest coverage cProfile profile timeit trace", "runs-code:build"],
  ["nginx caddy httpd apache2 lighttpd", "network:server"],
  ["redis-server mongod postgres mysqld", "network:server"],
  ["psql mysql mariadb mongosh mongo redis-cli cqlsh sqlcmd clickhouse-client", "network:client"],
  // The git hosts' CLIs, containers, clusters and clouds: _network-clis.ts.
  ...NETWORK_CLIS,
  ["twine vsce ovsx", "network:publisher"],
  // rclone: its listings and sums of a remote read it; copying, syncing, mounting and serving move data (uploader: asked confined too); config holds the remotes' tokens.
  ["rclone", "network:uploader | sub ls,lsd,lsl,lsf,lsjson,size,about,tree,md5sum,sha1sum,hashsum,cat,version,listremotes,check,cryptcheck=read-only:remote config,authorize,obscure,reveal=system:secrets delete,deletefile,purge,rmdir,rmdirs,cleanup,dedupe=destroys"],
  ["git-lfs", "network:client | sub push=network:publisher"],
  [
    "git",
    "writes | sub status,log,diff,show,blame,annotate,grep,describe,shortlog,reflog,cat-file,rev-parse,rev-list,ls-files,ls-tree,for-each-ref,name-rev,merge-base,count-objects,check-ignore,check-attr,check-ref-format,help,version,whatchanged,show-ref,show-branch,var,verify-commit,verify-tag,cherry,range-diff,diff-tree,diff-files,diff-index,fsck,stash.list,stash.show,worktree.list,remote.get-url,config.get,config.list,branch.--list,lfs.ls-files,lfs.status=read-only add,commit,checkout,switch,restore,stash,merge,cherry-pick,revert,mv,rm,tag,notes,am,apply,init,worktree,branch,reset,clean,rebase,gc,prune,repack,maintenance,config,remote,sparse-checkout,update-index,update-ref,symbolic-ref,read-tree,write-tree,commit-tree,hash-object,mktag,mktree,pack-refs,replace,format-patch,archive,bundle,stripspace,mailinfo,mailsplit,rerere,restore,citool,gui,reflog.expire,reflog.delete=writes fetch,pull,clone,ls-remote,submodule,remote.update,remote.show,remote.prune,remote.set-head,lfs.pull,lfs.fetch,lfs.install=network:client push,send-email,lfs.push=network:publisher filter-branch,difftool,mergetool=runs-code:shell bisect=writes instaweb,daemon=network:server *=unknown",
  ],
  // Mercurial, as git: reading the history reads; committing writes; what reaches a server is the network's.
  [
    "hg",
    "writes | program -e,--ssh,--remotecmd | when --config=runs-code:shell | sub status,st,log,history,diff,cat,annotate,blame,summary,sum,heads,branches,tags,identify,id,files,locate,manifest,parents,paths,root,tip,version,help,grep,verify=read-only config=unknown add,addremove,commit,ci,amend,rm,remove,forget,mv,rename,move,cp,copy,revert,update,up,checkout,co,merge,resolve,rebase,graft,backout,strip,shelve,unshelve,tag,bookmark,bookmarks,branch,init,import,purge,phase=writes pull,clone,incoming,in,fetch,outgoing,out=network:client push=network:publisher serve=network:server histedit,commit.--interactive,record,crecord=runs-code:editor *=unknown",
  ],
  // The system: privileges, services, schedules, containers, clusters, clouds, processes.
  ["sudo doas su runuser pkexec", "system:privileges"],
  ["chroot unshare nsenter", "system:privileges"],
  ["systemctl service launchctl rc-service", "system:services | sub status,list-units,list-unit-files,list-timers,list-sockets,list-dependencies,show,is-active,is-enabled,is-failed,is-system-running,cat,--version,list,print,print-disabled,blame,help=read-only"],
  ["systemd-run", "system:services"],
  ["crontab", "system:scheduler | when -l=read-only"],
  ["at batch atrm", "system:scheduler"],
  ["atq", "read-only"],
  ["kill pkill killall skill", "system:processes"],
  ["shutdown reboot halt poweroff init telinit", "system:services"],
  ["mount umount losetup modprobe insmod rmmod swapon swapoff", "system:privileges"],
  ["sysctl", "read-only | when -w,--write,-p,--load=system:privileges"],
  ["iptables ip6tables nft ufw firewall-cmd", "system:privileges"],
  ["useradd usermod userdel groupadd groupdel groupmod passwd chpasswd chsh visudo", "system:privileges"],
  // The local clusters' listings and status; their kubeconfig commands print credentials, their other commands change clusters.
  ["minikube", "system:cluster | sub status,version,ip,profile.list,addons.list,service.list,update-check=read-only"],
  ["kind", "system:cluster | sub version,get.clusters,get.nodes=read-only"],
  ["k3d", "system:cluster | sub version,cluster.list,cluster.ls,node.list,node.ls,registry.list,registry.ls=read-only"],
  ["k9s kubectx kubens", "system:cluster"],
  ["kustomize", "read-only"],
  ["timedatectl", "system:privileges | sub status,show,list-timezones,timesync-status,show-timesync=read-only"],
  // Version managers: their listings read; installing, switching (global, use -g) and the rest install or change the user's tools.
  ["mise asdf pyenv rbenv nodenv goenv", "installs:installer | sub ls,list,current,where,which,whence,version,versions,root,prefix,commands,doctor,--version=read-only"],
  // Registries' and signatures' clients: inspecting and listing read; copying, signing and deleting publish.
  ["skopeo", "network:publisher | sub inspect,list-tags,--version=read-only:remote delete=destroys login,logout=system:secrets"],
  ["crane", "network:publisher | sub ls,digest,manifest,config,catalog,validate,version=read-only:remote delete=destroys auth=system:secrets"],
  ["cosign", "network:publisher | sub verify,verify-blob,verify-attestation,tree,triangulate,version=read-only:remote login=system:secrets"],
  ["goreleaser", "network:publisher | sub check,healthcheck,--version=read-only build=runs-code:build"],
  ["buildah", "system:containers | sub images,containers,inspect,info,version,--version=read-only rm,rmi,prune=destroys push=network:publisher login,logout=system:secrets"],
  ["cdk cdktf sam serverless sls ansible vagrant packer", "system:cloud | sub destroy,remove,rm,delete=destroys:infrastructure"],
  // pulumi preview runs the project's program and reads the cloud, as terraform plan: the project's build (its secrets shown are a secret store).
  ["pulumi", "system:cloud | sub destroy,remove,rm,delete=destroys:infrastructure preview,pre=runs-code:build | when --show-secrets=system:secrets"],
  // ansible-playbook's checks (syntax, the tasks or tags listed) run no task, but read the project's inventory and ansible.cfg (which may name scripts): the project's build.
  ["ansible-playbook", "system:cloud | when --syntax-check,--list-tasks,--list-tags=runs-code:build"],
  // ansible-lint lints the project's files, and installs its requirements and loads its rules: the project's build.
  ["ansible-lint", "runs-code:build"],
  ["wipefs fdisk sfdisk cfdisk gdisk sgdisk parted mkfs mkswap", "destroys"],
];
