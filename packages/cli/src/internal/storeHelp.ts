/**
 * The help text of the store options, shared by `roster node` and `roster primary`: the URL forms,
 * the file and the environment, in their order of precedence.
 */
export const STORE_HELP = `The store, from the first of these that is given (so it need not be on the command line):
  --store URL           where the store is:
                          redis://[user:pass@]host:port[/db]   one Redis server
                          rediss://[user:pass@]host:port[/db]  the same over TLS
                          host:port,host:port,...               seed nodes of a Redis Cluster
                          redis+sentinel://[user:pass@]host:port[,host:port...]/MASTER
                                                                the master of a Redis Sentinel
                                                                deployment (rediss+sentinel:// TLS)
  --store-file PATH     read the store URL from the file PATH (trimmed), e.g. a mounted secret
  ROSTER_STORE_URL      the store URL from the environment, when neither flag is given
  ROSTER_STORE_PASSWORD the password, for a store URL that has none (URL-encoded for you)
  Passwords are never printed: not in logs, errors, the status page or /status.json.`;
