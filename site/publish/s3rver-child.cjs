'use strict';
/*
 * A local S3-compatible store for tests and benchmarks: s3rver on 127.0.0.1, a free port, the buckets named in
 * argv[3..] created empty, its files under argv[2]. Prints {"port"} on stdout once listening. Started with Node's
 * --openssl-legacy-provider: s3rver's list pagination uses a cipher newer OpenSSL only has there.
 */
const S3rver = require('s3rver');
const FilesystemStore = require('s3rver/lib/stores/filesystem');

/*
 * s3rver 3.7 lists no common prefix for keys two or more folders below it (its folder walk stops beneath a common
 * prefix before it has seen a key there), so a listing of Litestream's generations (prefix `.../generations/`,
 * delimiter `/`) came back empty and Litestream's retention, finding no snapshot, took one at every check. Listed
 * here without the delimiter, then folded into common prefixes as S3 does.
 */
const listObjects = FilesystemStore.prototype.listObjects;
FilesystemStore.prototype.listObjects = async function (bucket, options) {
  if (!options.delimiter) return listObjects.call(this, bucket, options);
  const { delimiter, prefix = '', maxKeys = Infinity } = options;
  const all = await listObjects.call(this, bucket, { ...options, delimiter: '', maxKeys: Infinity });
  const prefixes = new Set();
  const objects = [];
  for (const object of all.objects) {
    const index = object.key.slice(prefix.length).indexOf(delimiter);
    if (index === -1) objects.push(object);
    else prefixes.add(object.key.slice(0, prefix.length + index + 1));
  }
  const entries = [...objects.map((object) => ({ name: object.key, object })), ...[...prefixes].map((name) => ({ name }))]
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const kept = entries.slice(0, maxKeys);
  return {
    objects: kept.filter((entry) => entry.object).map((entry) => entry.object),
    commonPrefixes: kept.filter((entry) => !entry.object).map((entry) => entry.name),
    isTruncated: entries.length > kept.length,
  };
};

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
