use sha2::{Digest, Sha256};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::proto::toolhost::files::v1::read_file_response::Part;
use crate::proto::toolhost::files::v1::{ReadFileRequest, ReadMode, ReadSummary};
use crate::{Error, FilesClient};

/// Streams the file `request` names into `sink` (bytes mode unless the request says text) and
/// checks what arrived against the summary's sha256.
pub async fn read_to<W: AsyncWrite + Unpin>(files: &mut FilesClient, mut request: ReadFileRequest, sink: &mut W) -> Result<ReadSummary, Error> {
    if request.mode == ReadMode::Unspecified as i32 {
        request.mode = ReadMode::Bytes as i32;
    }
    let path = request.path.clone();
    let mut stream = files.read_file(request).await?.into_inner();
    let mut hash = Sha256::new();
    let mut summary = None;
    while let Some(msg) = stream.message().await? {
        match msg.part {
            Some(Part::Data(data)) => {
                hash.update(&data);
                sink.write_all(&data).await?;
            }
            Some(Part::Text(text)) => {
                hash.update(text.as_bytes());
                sink.write_all(text.as_bytes()).await?;
            }
            Some(Part::Summary(s)) => summary = Some(s),
            Some(Part::Info(_)) | None => {}
        }
    }
    let summary = summary.ok_or_else(|| Error::Verify(format!("read of {path:?} ended without a summary")))?;
    let got = hex::encode(hash.finalize());
    if got != summary.sha256 {
        return Err(Error::Verify(format!("read of {path:?}: received bytes hash to {got}, the server sent {}", summary.sha256)));
    }
    Ok(summary)
}

/// Reads the file (or range) `request` names into memory, checked against its sha256.
pub async fn read_all(files: &mut FilesClient, request: ReadFileRequest) -> Result<Vec<u8>, Error> {
    let mut buf = Vec::new();
    read_to(files, request, &mut buf).await?;
    Ok(buf)
}
