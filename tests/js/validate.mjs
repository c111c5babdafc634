// The Khronos glTF validator as a test oracle: `node validate.mjs FILE` prints one JSON object
// {numErrors, numWarnings, numInfos, numHints, truncated, messages:[{code, severity, pointer, message}]}
// on stdout and exits 0 whatever the verdict (the caller decides); non-zero only when the script
// itself fails (unreadable file, unrecognised container), with the reason on stderr.
// Severity: 0 error, 1 warning, 2 info, 3 hint (the validator's own numbering).
import fs from 'node:fs';
import path from 'node:path';
import * as validator from 'gltf-validator';

async function main() {
    const file = process.argv[2];
    if (!file || process.argv.length > 3) throw new Error('usage: node validate.mjs FILE.glb|FILE.gltf');
    const bytes = new Uint8Array(fs.readFileSync(file));
    const folder = path.dirname(path.resolve(file));
    const report = await validator.validateBytes(bytes, {
        uri: path.basename(file),
        maxIssues: 0,  // unlimited: every message is listed, so the counts and the list agree
        writeTimestamp: false,
        // External buffers and images are read relative to the file's folder, as a client would.
        externalResourceFunction: (uri) =>
            fs.promises.readFile(path.resolve(folder, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
    const issues = report.issues;
    console.log(JSON.stringify({
        numErrors: issues.numErrors,
        numWarnings: issues.numWarnings,
        numInfos: issues.numInfos,
        numHints: issues.numHints,
        truncated: issues.truncated === true,
        messages: issues.messages.map((m) => ({
            code: m.code,
            severity: m.severity,
            pointer: m.pointer ?? (m.offset !== undefined ? `@${m.offset}` : ''),
            message: m.message,
        })),
    }));
}

main().catch((e) => {
    console.error(`validate.mjs: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
});
