// A user's program depending on the toolhost-client crate by path, built in a crate outside the
// repository by test/clients/rust-client.stress.test.ts and run against a live server.
use sha2::{Digest, Sha256};
use toolhost_client::proto::toolhost::errors::v1::ErrorReason;
use toolhost_client::proto::toolhost::files::v1::{ListToolsRequest, ReadFileRequest, UploadHeader};
use toolhost_client::{connect, has_reason, read_all, read_to, reason, upload, Options};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args().nth(1).expect("usage: scratch HOST:PORT");
    let mut client = connect(&address, Options::default()).await?;

    let tools = client.files.list_tools(ListToolsRequest {}).await?.into_inner().tools;
    println!("tools {}", tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(","));

    let content: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let sha = hex::encode(Sha256::digest(&content));
    let header = UploadHeader {
        path: "rust/upload.bin".into(),
        create_parents: Some(true),
        expected_size: Some(content.len() as u64),
        expected_sha256: sha.clone(),
        ..Default::default()
    };
    let up = upload(&mut client.files, header, std::io::Cursor::new(content.clone())).await?;
    println!("upload {} {}", up.size, up.sha256 == sha);

    let data = read_all(&mut client.files, ReadFileRequest { path: "rust/upload.bin".into(), ..Default::default() }).await?;
    println!("read_all {} {}", data.len(), data == content);

    let mut sink = Vec::new();
    let request = ReadFileRequest { path: "rust/upload.bin".into(), byte_offset: 10, byte_limit: Some(100), ..Default::default() };
    let summary = read_to(&mut client.files, request, &mut sink).await?;
    println!("read_to {} {}", summary.bytes_sent, sink == content[10..110]);

    let err = read_all(&mut client.files, ReadFileRequest { path: "../../etc/passwd".into(), ..Default::default() }).await.unwrap_err();
    println!("reason {} {}", reason(&err).unwrap_or_default(), has_reason(&err, ErrorReason::PathTraversal));

    let bad = UploadHeader { path: "rust/bad.bin".into(), expected_size: Some(1), ..Default::default() };
    let err = upload(&mut client.files, bad, std::io::Cursor::new(b"two".to_vec())).await.unwrap_err();
    println!("mismatch {}", reason(&err).unwrap_or_default());

    match connect("127.0.0.1:1", Options::default()).await {
        Ok(_) => println!("unavailable connected?"),
        Err(err) => println!("unavailable {:?}", reason(&err)),
    }
    Ok(())
}
