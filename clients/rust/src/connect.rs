use std::net::IpAddr;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::proto::toolhost::files::v1::file_tools_client::FileToolsClient;
use crate::proto::toolhost::skills::v1::skill_catalog_client::SkillCatalogClient;
use crate::proto::toolhost::tools::v1::tools_client::ToolsClient as GeneratedToolsClient;
use crate::Error;

/// The FileTools client [`connect`] returns.
pub type FilesClient = FileToolsClient<InterceptedService<Channel, BearerInterceptor>>;
/// The SkillCatalog client [`connect`] returns.
pub type SkillsClient = SkillCatalogClient<InterceptedService<Channel, BearerInterceptor>>;
/// The Tools client [`connect`] returns: ListTools rendered in a dialect, CallTool.
pub type ToolsClient = GeneratedToolsClient<InterceptedService<Channel, BearerInterceptor>>;

/// Options for [`connect`].
#[derive(Clone, Default)]
pub struct Options {
    /// TLS settings; plaintext when None. `ClientTlsConfig::new().with_native_roots()` uses the
    /// system CAs.
    pub tls: Option<ClientTlsConfig>,
    /// Bearer token sent as `authorization` on every call; over plaintext only to loopback.
    pub token: Option<String>,
}

/// One connection with the clients of the three services, sharing its TLS and token.
#[derive(Clone)]
pub struct Client {
    pub files: FilesClient,
    pub skills: SkillsClient,
    /// The model-facing tools: ListTools in a dialect, CallTool.
    pub tools: ToolsClient,
}

/// BearerInterceptor adds `authorization: Bearer <token>` to each call when a token is set.
#[derive(Clone)]
pub struct BearerInterceptor(Option<MetadataValue<Ascii>>);

impl tonic::service::Interceptor for BearerInterceptor {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// Connects to toolhost at `address` ("host:port"), with 4 MiB stream and 16 MiB connection
/// HTTP/2 windows so streamed reads keep a high-latency link busy.
pub async fn connect(address: &str, options: Options) -> Result<Client, Error> {
    let secure = options.tls.is_some();
    let url = format!("{}://{}", if secure { "https" } else { "http" }, address);
    let mut endpoint = Endpoint::from_shared(url)?
        .initial_stream_window_size(4 << 20)
        .initial_connection_window_size(16 << 20);
    if let Some(tls) = options.tls {
        endpoint = endpoint.tls_config(tls)?;
    }
    let token = match options.token {
        Some(token) => {
            if !secure && !is_loopback(address) {
                return Err(Error::Config("a token is sent in plaintext only to a loopback address; set Options::tls".into()));
            }
            Some(format!("Bearer {token}").parse().map_err(|_| Error::Config("the token is not a valid header value".into()))?)
        }
        None => None,
    };
    let channel = endpoint.connect().await?;
    let interceptor = BearerInterceptor(token);
    Ok(Client {
        files: FileToolsClient::with_interceptor(channel.clone(), interceptor.clone()),
        skills: SkillCatalogClient::with_interceptor(channel.clone(), interceptor.clone()),
        tools: GeneratedToolsClient::with_interceptor(channel, interceptor),
    })
}

fn is_loopback(address: &str) -> bool {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}
