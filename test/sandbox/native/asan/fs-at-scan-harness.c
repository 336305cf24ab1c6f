// fs-at-scan-harness: count_newlines and find_text of native/fs-at/fs-at.c (included whole, its
// N-API calls stubbed at link time by fs-at-asan-fuzz.stress.test.ts) against a byte loop and memmem,
// under AddressSanitizer: every haystack is a malloc of its exact length (a read one byte past
// it is reported), starts unaligned, and sizes cross the 32-byte steps and the 255-step sums.
// Runs TRIALS cases (bounded by work, not time). Prints "trials N fails M"; exits 1 on a wrong
// answer, 2 without AVX2.
#include FS_AT_SOURCE
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void){ rs ^= rs<<13; rs ^= rs>>7; rs ^= rs<<17; return rs; }
static size_t naive_nl(const uint8_t*p,size_t n){size_t c=0;for(size_t i=0;i<n;i++)c+=p[i]=='\n';return c;}
int main(void){
  if(!avx2_ok()){printf("no avx2\n");return 2;}
  long fails=0, trials=0;
  size_t sizes[]={0,1,31,32,33,63,64,65,255*32-1,255*32,255*32+1,255*32*2+17,100000};
  for(int t=0;t<TRIALS;t++){
    size_t n = t<13*8 ? sizes[t%13] : rnd()% (t%10==0? 40000: 600);
    uint8_t* buf = malloc(n ? n : 1); // exact size: ASan sees a read past n
    int mode=rnd()%4;
    for(size_t i=0;i<n;i++){ uint64_t r=rnd(); buf[i]= mode==0? '\n' : mode==1? (r%2?'\n':'a') : mode==2 ? (uint8_t)r : (r%50==0?'\n':'x'); }
    uint8_t* p = buf; size_t m = n;
    if (n>0 && rnd()%2){ size_t off=rnd()%n; p+=off; m-=off; } // unaligned start
    if (count_newlines(p,m)!=naive_nl(p,m)){ fails++; if(fails<5) printf("count mismatch n=%zu\n",m); }
    // find_text with needle from random places incl. at the very end
    size_t len = 1 + rnd()%70; if (len<=m && m>0){
      uint8_t* nd = malloc(len); size_t from = rnd()%3==0 ? m-len : rnd()%(m-len+1); memcpy(nd,p+from,len);
      const uint8_t* a=find_text(p,m,nd,len); const uint8_t* b=memmem(p,m,nd,len);
      if(a!=b){fails++; if(fails<5) printf("find mismatch m=%zu len=%zu\n",m,len);} free(nd);
    }
    free(buf); trials++;
  }
  printf("trials %ld fails %ld\n",trials,fails); return fails!=0;
}
