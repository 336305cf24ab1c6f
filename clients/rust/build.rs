// Generates the toolhost messages and clients from the repository's proto/ (two levels up, or
// TOOLHOST_PROTO_DIR) with tonic-prost-build. protoc comes from protoc-bin-vendored, so a build
// needs nothing installed besides cargo.
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = std::env::var("TOOLHOST_PROTO_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto"));
    let mut files = Vec::new();
    for package in ["toolhost/files/v1", "toolhost/skills/v1", "toolhost/tools/v1", "toolhost/errors/v1"] {
        for entry in std::fs::read_dir(proto_dir.join(package))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "proto") {
                files.push(path);
            }
        }
    }
    files.sort();
    std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?);
    println!("cargo:rerun-if-changed={}", proto_dir.display());
    println!("cargo:rerun-if-env-changed=TOOLHOST_PROTO_DIR");
    tonic_prost_build::configure()
        .build_server(false)
        .compile_protos(&files, &[proto_dir])?;
    Ok(())
}
