"""Normalisation of weather-model predictions (reconstruction of credit/transforms.py, Normalize_ERA5_and_Forcing)."""

import numpy as np
import torch


class Normalize_ERA5_and_Forcing:
    def __init__(self, conf):
        stats = conf["data"]["stats"]
        self.mean_tensors = {}
        self.std_tensors = {}
        for var in conf["data"]["all_varnames"]:
            mean_array = stats[var]["mean"]
            std_array = stats[var]["std"]
            self.mean_tensors[var] = torch.tensor(mean_array)
            self.std_tensors[var] = torch.tensor(std_array)
        self.levels = conf["data"]["levels"]
        self.varname_upper_air = conf["data"]["variables"]
        self.varname_surface = conf["data"]["surface_variables"]
        self.flag_surface = len(self.varname_surface) > 0
        self.num_upper_air = len(self.varname_upper_air) * self.levels

    def transform_array(self, x):
        device = x.device
        tensor_upper_air = x[:, : self.num_upper_air]
        transformed_upper_air = tensor_upper_air.clone()
        if self.flag_surface:
            tensor_surface = x[:, self.num_upper_air :]
            transformed_surface = tensor_surface.clone()

        k = 0
        for name in self.varname_upper_air:
            mean_tensor = self.mean_tensors[name].to(device)
            std_tensor = self.std_tensors[name].to(device)
            for level in range(self.levels):
                transformed_upper_air[:, k] = (tensor_upper_air[:, k] - mean_tensor[level]) / std_tensor[level]
                k += 1

        if self.flag_surface:
            for k, name in enumerate(self.varname_surface):
                var_mean = self.mean_tensors[name].to(device)
                var_std = self.std_tensors[name].to(device)
                transformed_surface[:, k] = (tensor_surface[:, k] - var_mean) / var_std
            return torch.cat((transformed_upper_air, transformed_surface), dim=1)
        return transformed_upper_air


def main(device="mps"):
    levels = 3
    conf = {"data": {"all_varnames": ["U", "T2m"], "variables": ["U"], "surface_variables": ["T2m"], "levels": levels,
                     "stats": {"U": {"mean": np.zeros(levels), "std": np.ones(levels)},
                               "T2m": {"mean": np.float64(280.0), "std": np.float64(10.0)}}}}
    transform = Normalize_ERA5_and_Forcing(conf)
    y_pred = torch.randn(2, levels + 1, 4, 4, device=device)
    return transform.transform_array(y_pred)


if __name__ == "__main__":
    main()
