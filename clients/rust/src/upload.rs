use std::sync::{Arc, Mutex};

use futures_util::stream;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;

use crate::proto::toolhost::files::v1::upload_file_request::Part;
use crate::proto::toolhost::files::v1::{UploadFileRequest, UploadFileResponse, UploadHeader};
use crate::{Error, FilesClient};

const CHUNK: usize = 256 * 1024;

/// Uploads what `reader` yields to the file `header` names. The bytes are hashed on the way and
/// compared with the sha256 the server reports. Set `expected_size`/`expected_sha256` in the
/// header when known: the server then refuses a mismatch (UPLOAD_MISMATCH) before anything
/// changes. A read error of `reader` cancels the upload and is returned.
pub async fn upload<R: AsyncRead + Unpin + Send + 'static>(files: &mut FilesClient, header: UploadHeader, reader: R) -> Result<UploadFileResponse, Error> {
    let path = header.path.clone();
    let hash = Arc::new(Mutex::new(Sha256::new()));
    let read_error: Arc<Mutex<Option<std::io::Error>>> = Arc::default();
    let first = UploadFileRequest { part: Some(Part::Header(header)) };
    let failed = Arc::new(Notify::new());
    let (h, e, f) = (hash.clone(), read_error.clone(), failed.clone());
    let data = stream::unfold(Some(reader), move |reader| {
        let (h, e, failed) = (h.clone(), e.clone(), f.clone());
        async move {
            let mut reader = reader?;
            let mut buf = vec![0u8; CHUNK];
            match reader.read(&mut buf).await {
                Ok(0) => None,
                Ok(n) => {
                    buf.truncate(n);
                    h.lock().unwrap().update(&buf);
                    Some((UploadFileRequest { part: Some(Part::Data(buf)) }, Some(reader)))
                }
                Err(err) => {
                    // Ending the stream here would half-close the call and commit a short file:
                    // the stream stalls instead, and the select below drops (cancels) the call.
                    *e.lock().unwrap() = Some(err);
                    failed.notify_one();
                    std::future::pending::<()>().await;
                    None
                }
            }
        }
    });
    let requests = futures_util::StreamExt::chain(stream::iter([first]), data);
    let response = tokio::select! {
        result = files.upload_file(requests) => result?.into_inner(),
        () = failed.notified() => {
            let err = read_error.lock().unwrap().take();
            return Err(Error::Io(err.unwrap_or_else(|| std::io::Error::other("upload source failed"))));
        }
    };
    let sent = hex::encode(hash.lock().unwrap().clone().finalize());
    if sent != response.sha256 {
        return Err(Error::Verify(format!("upload of {path:?}: sent bytes hash to {sent}, the server stored {}", response.sha256)));
    }
    Ok(response)
}
