/**
 * The network CLIs people use all day (issue 39), rows in the grammar of `_row.ts`: their read-only
 * subcommands (list, view, diff, status, logs) are `read-only:remote` — they ask a service and
 * change nothing there; their writes, publishing and credential commands ask (`network:publisher`,
 * `destroys`, `system:secrets`); a subcommand no row names is the row's kind, which asks. The
 * cloud CLIs' read verbs (`aws ec2 describe-instances`, `gcloud … list`, `az … show`) are judged by
 * `judge/_network-reads.ts`, since their subcommands are too many to list. Part of `PROGRAMS`.
 */
export const NETWORK_CLIS: ReadonlyArray<readonly [names: string, row: string]> = [
  [
    "gh",
    "network:client | writes -D,--dir,-O,--output | sub *.list,*.ls,*.view,*.diff,*.checks,*.status,*.watch,search,status,auth.status,config.get,config.list,repo.view,release.view,run.view,pr.view,issue.view,gist.view,workflow.view,ruleset.check,cache.list,run.download,release.download=read-only:remote *.create,*.merge,*.close,*.reopen,*.comment,*.edit,*.review,*.upload,*.ready,*.lock,*.transfer,*.archive,*.rename,*.sync,*.fork,*.cancel,*.rerun,*.run,*.set,*.add,*.enable,*.disable,*.develop=network:publisher *.delete=destroys extension.install=installs:installer pr.checkout,repo.clone=network:client auth.token,auth.login,auth.logout,auth.refresh,auth.setup-git,auth.switch=system:secrets | when --show-token,-t=system:secrets",
  ],
  [
    "glab hub",
    "network:client | sub *.list,*.ls,*.view,*.diff,*.status,*.trace,ci-status,auth.status,config.get=read-only:remote *.create,*.merge,*.close,*.reopen,*.note,*.update,*.approve,*.upload,*.set,*.run,*.retry=network:publisher *.delete=destroys auth.login,auth.logout,variable.list,variable.get,variable.export,variable.set,variable.update,variable.delete=system:secrets | when --show-token,-t=system:secrets",
  ],
  // Gitea's tea: its lists read; what creates, merges, closes or deletes writes; its logins are credentials.
  ["tea", "network:client | sub *.list,*.ls=read-only:remote *.create,*.merge,*.close,*.reopen,*.edit,*.approve,*.reject,*.review,*.comment,comment,open,close=network:publisher *.delete,*.rm=destroys login,logins,logout,login.add,login.delete,login.edit,login.default=system:secrets"],
  [
    "docker podman nerdctl",
    "system:containers | sub ps,images,logs,version,info,stats,top,port,history,search,events,diff,network.ls,network.inspect,volume.ls,volume.inspect,image.ls,image.inspect,container.ls,context.ls,context.inspect,compose.ps,compose.logs,compose.ls,compose.images,compose.top,system.df,system.info,buildx.ls,manifest.inspect=read-only inspect,container.inspect,compose.config=system:secrets rm,rmi,system.prune,volume.rm,volume.prune,image.prune,image.rm,container.prune,container.rm,network.rm,network.prune,builder.prune,compose.down,compose.rm=destroys push,image.push=network:publisher login,logout=system:secrets | when --environment=system:secrets",
  ],
  ["docker-compose podman-compose", "system:containers | sub ps,logs,config,ls,images=read-only down,rm=destroys"],
  [
    "kubectl oc",
    "system:cluster | sub get,describe,logs,explain,api-resources,api-versions,version,config.view,config.get-contexts,config.get-clusters,config.current-context,top,events,auth.can-i,auth.whoami,cluster-info,diff,rollout.status,rollout.history,wait,plugin.list=read-only delete,drain,cordon=destroys | when --raw,--flatten=system:secrets",
  ],
  ["helm", "system:cluster | sub get.values,get.all,get.manifest,get.hooks=system:secrets list,ls,status,get,show,template,lint,search,history,version,repo.list,env,dependency.list,plugin.list,verify=read-only uninstall,delete,del,un=destroys push=network:publisher registry.login=system:secrets"],
  [
    "terraform tofu terragrunt",
    "system:cloud | sub plan=runs-code:build fmt=writes validate,version,providers,graph,state.list,workspace.list,workspace.show=read-only show,output,console,state.show,state.pull=system:secrets destroy,state.rm=destroys:infrastructure init,get=installs:installer login,logout=system:secrets | when -destroy=destroys:infrastructure",
  ],
  ["aws", "system:cloud | sub s3.rb,s3.rm,*.delete-bucket,*.delete-stack,*.terminate-instances,*.delete-function,*.delete-db-instance,*.delete-cluster,*.delete-repository,*.delete-secret=destroys:infrastructure s3.ls,sts.get-caller-identity,configure.list,configure.list-profiles,logs.tail,logs.filter-log-events=read-only:remote configure.get,configure.export-credentials,configure.set,configure.sso,sso.login,ecr.get-login-password=system:secrets"],
  ["gsutil", "system:cloud | sub rm,rb=destroys:infrastructure ls,cat,du,stat=read-only"],
  ["gcloud az doctl flyctl fly heroku vercel netlify wrangler firebase oci ibmcloud linode-cli hcloud railway supabase", "system:cloud | sub *.delete,*.destroy,delete,destroy,remove,rm=destroys:infrastructure"],
];
