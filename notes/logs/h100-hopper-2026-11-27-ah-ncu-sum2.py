"""issue11ac: ncu --page raw --csv -> per result: kernel, grid / block / smem / regs, duration, instructions, pipes,
per-SM active cycles (avg / max / min: the tail), DRAM bytes, L2 hit rate, top stall reasons.
    python3 ncu_sum2.py raw.csv"""
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
data = [r for r in rows[2:] if len(r) == len(hdr)]
col = {h: i for i, h in enumerate(hdr)}
def s(r, h):
    return r[col[h]] if h in col else "?"
def num(r, h):
    try:
        return float(s(r, h).replace(",", ""))
    except ValueError:
        return float("nan")
st = [h for h in hdr if re.fullmatch(r"smsp__average_warps_issue_stalled_\w+_per_issue_active\.ratio", h)]
for i, r in enumerate(data):
    name = s(r, "Kernel Name")
    print(f"[{i}] {name[:120]}")
    print(f"    grid {s(r,'launch__grid_size')} block {s(r,'launch__block_size')} regs {s(r,'launch__registers_per_thread')} "
          f"smem dyn {s(r,'launch__shared_mem_per_block_dynamic')} static {s(r,'launch__shared_mem_per_block_static')} "
          f"waves/SM {s(r,'launch__waves_per_multiprocessor')} occ.limit regs/smem/warps {s(r,'launch__occupancy_limit_registers')}/"
          f"{s(r,'launch__occupancy_limit_shared_mem')}/{s(r,'launch__occupancy_limit_warps')} "
          f"achieved occ {s(r,'sm__warps_active.avg.pct_of_peak_sustained_active')}% smem config {s(r,'launch__shared_mem_config_size')} "
          f"cluster {s(r,'launch__cluster_dim_x')}x{s(r,'launch__cluster_dim_y')}")
    print(f"    duration {num(r,'gpu__time_duration.sum')/1000:.2f} us, inst {num(r,'smsp__inst_executed.sum'):.5g}, "
          f"SM active cycles avg {num(r,'sm__cycles_active.avg'):.0f} max {num(r,'sm__cycles_active.max'):.0f} "
          f"min {num(r,'sm__cycles_active.min'):.0f}, elapsed {num(r,'gpc__cycles_elapsed.max'):.0f}")
    print(f"    tensor pipe {num(r,'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active'):.1f}% "
          f"xu {num(r,'sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active'):.1f}% "
          f"alu {num(r,'sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active'):.1f}% "
          f"fma {num(r,'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active'):.1f}% "
          f"issue-active {num(r,'smsp__issue_active.avg.pct_of_peak_sustained_active'):.1f}% "
          f"DRAM read {num(r,'dram__bytes_read.sum')/1e6:.1f} MB write {num(r,'dram__bytes_write.sum')/1e6:.1f} MB "
          f"L2 hit {num(r,'lts__t_sector_hit_rate.pct'):.1f}%")
    stalls = sorted(((num(r, h), h.split("stalled_")[1].split("_per_issue")[0]) for h in st), reverse=True)
    print("    stalls/issue: " + ", ".join(f"{n} {v:.2f}" for v, n in stalls[:9]))
