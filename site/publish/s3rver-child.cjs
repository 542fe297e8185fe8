'use strict';
/*
 * A local S3-compatible store for tests and benchmarks: s3rver on 127.0.0.1, a free port, the buckets named in
 * argv[3..] created empty, its files under argv[2]. Prints {"port"} on stdout once listening. Started with Node's
 * --openssl-legacy-provider: s3rver's list pagination uses a cipher newer OpenSSL only has there.
 */
const S3rver = require('s3rver');

const [directory, ...buckets] = process.argv.slice(2);
new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })),
})
  .run()
  .then((address) => process.stdout.write(`${JSON.stringify({ port: address.port })}\n`))
  .catch((error) => {
    process.stderr.write(`s3rver: ${error.message}\n`);
    process.exit(1);
  });
